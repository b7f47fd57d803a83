/** The ways an alert goes out. */
export const CHANNEL_NAMES = ['webhook', 'email'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/**
 * Where one message (an episode's alert, a day's digest) stands, as its table row says: the attempts made, the lease
 * of the one under way, and the channels that have it.
 */
export interface Delivery {
  attempt: number;
  /** Unix seconds until which the console making the current attempt holds it; null: no attempt under way. */
  sendingUntil: number | null;
  /** When each channel took the message (Unix seconds); absent: not yet. */
  sent: Partial<Record<ChannelName, number>>;
}

/** The channels of `channels` that have not taken the message yet. */
export const pendingChannels = (d: Delivery, channels: readonly ChannelName[]): ChannelName[] =>
  channels.filter((c) => d.sent[c] === undefined);

/**
 * How long after a failed attempt the next may be claimed: a minute, doubling with each attempt up to an hour, so a
 * hook or mail server that is down is not asked again every evaluation.
 */
export const retryDelaySeconds = (attempt: number): number => Math.min(60 * 2 ** Math.max(0, attempt - 1), 3600);

/**
 * Whether a console may claim the next attempt: a channel still lacks the message and no attempt is under way or
 * waiting. A failed attempt holds its lease for retryDelaySeconds; one whose console died waits the lease out.
 */
export const isDue = (d: Delivery, channels: readonly ChannelName[], now: number): boolean =>
  pendingChannels(d, channels).length > 0 && (d.sendingUntil === null || d.sendingUntil <= now);
