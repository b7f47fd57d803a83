import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../../shared/errors/index.js';
import type { AlertChannel } from './channels/alert-channel.js';
import { deliver, reasonOf } from './deliver.js';
import type { AlertMessage } from './domain/alert-messages.js';
import type { Delivery } from './domain/delivery.js';

function channel(name: AlertChannel['name'], fails = false) {
  const sent: AlertMessage[] = [];
  const c: AlertChannel = {
    name,
    carries: (program) => program !== 'no-mail' || name !== 'email',
    async send(message) {
      if (fails) throw new DependencyUnavailableError('refused', { cause: new Error('connect ECONNREFUSED') });
      sent.push(message);
    },
    close: () => undefined,
  };
  return { c, sent };
}

const item = (id: string, sent: Delivery['sent'] = {}) => ({ id, attempt: 1, sendingUntil: null, sent });
const compose = (items: readonly { id: string }[]): AlertMessage => ({
  program: 'p',
  subject: 's',
  lines: items.map((i) => i.id),
});

describe('delivering a message on each channel', () => {
  it('When a channel fails, then its items say why, and the other channel still takes the message', async () => {
    const webhook = channel('webhook', true);
    const email = channel('email');
    const [a, b] = [item('a'), item('b')];
    const { outcomes, failures } = await deliver([a, b], 'p', [webhook.c, email.c], compose);
    expect(email.sent.map((m) => m.lines)).toEqual([['a', 'b']]);
    expect(outcomes.get(a)).toEqual({ sent: ['email'], errors: ['webhook: refused: connect ECONNREFUSED'] });
    expect(failures).toEqual([{ channel: 'webhook', reason: 'refused: connect ECONNREFUSED' }]);
  });

  it('When an item already went on a channel, then that channel’s message leaves it out', async () => {
    const webhook = channel('webhook');
    const email = channel('email');
    const { outcomes } = await deliver([item('a', { webhook: 1 }), item('b')], 'p', [webhook.c, email.c], compose);
    expect(webhook.sent.map((m) => m.lines)).toEqual([['b']]);
    expect(email.sent.map((m) => m.lines)).toEqual([['a', 'b']]);
    expect([...outcomes.values()].map((o) => o.sent)).toEqual([['email'], ['webhook', 'email']]);
  });

  it('When a channel does not carry the program, then it is not sent there', async () => {
    const email = channel('email');
    await deliver([item('a')], 'no-mail', [email.c], compose);
    expect(email.sent).toEqual([]);
  });

  it('When an error is not an Error, then its reason is its text', () => {
    expect(reasonOf('plain')).toBe('plain');
  });
});
