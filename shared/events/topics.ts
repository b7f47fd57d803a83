/**
 * Topic names, without the configured prefix (see `topicName`). Every per-user topic is keyed by the user's UUID,
 * so one user's entries stay in order on one partition and one consumer handles a user at a time.
 */
export const topics = {
  /** Entries as the phone pushed them, accepted by the gateway. The durable record of every 200 answered. */
  usercache: 'usercache',
  /** Entries converted to timeseries form; the trip builder's input. */
  timeseries: 'timeseries',
  /** Entries the converter could not convert, with the reason: the error timeseries. */
  errorTimeseries: 'error-timeseries',
  /** Server-to-phone documents (`diary/trips-<date>`), compacted by user and key; a null value deletes. */
  diary: 'diary',
} as const;
export type TopicId = keyof typeof topics;

export function topicName(prefix: string, id: TopicId): string {
  return `${prefix}${topics[id]}`;
}

/** Consumer groups, also prefixed, so `reset-pipeline` and tests can address them by name. */
export const groups = {
  converter: 'converter',
  tripBuilder: 'trip-builder',
} as const;
export type GroupId = keyof typeof groups;

export function groupName(prefix: string, id: GroupId): string {
  return `${prefix}${groups[id]}`;
}
