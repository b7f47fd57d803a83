import { describe, expect, it } from 'vitest';
import { webhookBody } from './webhook-body.js';

const message = { program: 'study', subject: 'Itinera alert', lines: ['one', 'two'] };

describe('the webhook body', () => {
  it('When the format is text, then the body is the text field Slack, Mattermost and Matrix hookshot show', () => {
    expect(webhookBody(message, 'text')).toEqual({ text: 'Itinera alert\none\ntwo' });
  });

  it('When the format is teams_workflow, then an Adaptive Card holds a block per line, beside the text', () => {
    const body = webhookBody(message, 'teams_workflow') as any;
    expect(body.text).toBe('Itinera alert\none\ntwo');
    expect(body.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(body.attachments[0].content.type).toBe('AdaptiveCard');
    expect(body.attachments[0].content.body.map((b: { text: string }) => b.text)).toEqual([
      'Itinera alert',
      'one',
      'two',
    ]);
  });
});
