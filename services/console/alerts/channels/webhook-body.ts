import type { AlertMessage } from '../domain/alert-messages.js';

/**
 * The JSON an incoming webhook is posted. `text` is what Slack, Mattermost, Matrix hookshot and Teams' Office 365
 * connectors show. Teams Workflows ("when a Teams webhook request is received") posts the first attachment's
 * Adaptive Card instead, so that format adds one, a text block per line (a card joins the lines of one block).
 */
export function webhookBody(message: AlertMessage, format: 'text' | 'teams_workflow'): Record<string, unknown> {
  const text = [message.subject, ...message.lines].join('\n');
  if (format === 'text') return { text };
  return {
    type: 'message',
    text,
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: message.subject, weight: 'Bolder', wrap: true },
            ...message.lines.map((line) => ({ type: 'TextBlock', text: line, wrap: true, spacing: 'None' })),
          ],
        },
      },
    ],
  };
}
