import type { AlertChannel } from './channels/alert-channel.js';
import type { AlertMessage } from './domain/alert-messages.js';
import type { ChannelName, Delivery } from './domain/delivery.js';

/** What came of one item's attempt: the channels that took it, and why the others did not. */
export interface ItemOutcome {
  sent: ChannelName[];
  errors: string[];
}

/**
 * Why a send failed, in a line for the log and the alerts list: an error's message and those of its causes (fetch's
 * "fetch failed" says nothing; the refused connection under it does).
 */
export function reasonOf(err: unknown): string {
  const messages: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return messages.join(': ').slice(0, 500);
}

/**
 * Sends each channel that carries `program` one message about the items it still lacks (a retried alert that the
 * webhook took but the mail server refused goes by mail only), and says what came of it, item by item. A failed
 * channel is a failure of its items, never of the others' or of the caller.
 */
export async function deliver<T extends Delivery>(
  items: readonly T[],
  program: string | null,
  channels: readonly AlertChannel[],
  compose: (items: readonly T[]) => AlertMessage,
): Promise<{ outcomes: Map<T, ItemOutcome>; failures: { channel: ChannelName; reason: string }[] }> {
  const outcomes = new Map(items.map((item) => [item, { sent: [], errors: [] } as ItemOutcome]));
  const failures: { channel: ChannelName; reason: string }[] = [];
  for (const channel of channels.filter((c) => c.carries(program))) {
    const lacking = items.filter((item) => item.sent[channel.name] === undefined);
    if (lacking.length === 0) continue;
    try {
      await channel.send(compose(lacking));
      for (const item of lacking) outcomes.get(item)!.sent.push(channel.name);
    } catch (err) {
      const reason = reasonOf(err);
      failures.push({ channel: channel.name, reason });
      for (const item of lacking) outcomes.get(item)!.errors.push(`${channel.name}: ${reason}`);
    }
  }
  return { outcomes, failures };
}
