import { DependencyUnavailableError } from '../../../../shared/errors/index.js';
import type { WebhookSettings } from '../alert-settings.js';
import type { AlertChannel } from './alert-channel.js';
import { webhookBody } from './webhook-body.js';

/** How long a hook may take to answer: an evaluation waits for it. */
const TIMEOUT_MS = 15_000;

/**
 * Posts each message to the incoming webhook. Any 2xx is taken (Slack answers 200, Teams Workflows 202). The URL is
 * a secret and appears in no error; a redirect is refused rather than followed with the message to another host.
 */
export function createWebhookChannel(settings: WebhookSettings, post: typeof fetch = fetch): AlertChannel {
  return {
    name: 'webhook',
    carries: () => true,
    async send(message) {
      let status: number;
      try {
        const answer = await post(settings.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(message, settings.format)),
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        status = answer.status;
        await answer.body?.cancel();
      } catch (cause) {
        throw new DependencyUnavailableError('the webhook could not be reached', { cause });
      }
      if (status < 200 || status > 299) throw new DependencyUnavailableError(`the webhook answered ${status}`);
    },
    close: () => undefined,
  };
}
