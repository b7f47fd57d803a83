import { LRUCache } from 'lru-cache';
import type { Admin, Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { isOutage } from '../../shared/errors/classify.js';
import { topicName, UNDECODABLE_KEY, type DeadLetter } from '../../shared/events/index.js';
import type { KeyedProducer, KeyedRecord } from '../../shared/kafka/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type {
  ReplaySince,
  TopicReplayKeyCounts,
  TopicReplayOptions,
  TopicReplayReport,
} from '../../shared/operations/operator-actions.js';
import { isReplayable } from '../../shared/timeseries/index.js';
import { BYTES_PER_SEND, letterIdentity, LETTERS_PER_SEND, replayMessage } from './replay-dead-letters.js';

/** Entry identities a replay remembers to send each entry once (about 100 bytes each). */
const SEEN_ENTRIES = 500_000;

export interface TopicReplayDeps {
  /** Builds the replay's own consumer (group `<prefix>dead-letter-replay`). */
  kafka: Pick<Kafka, 'consumer'>;
  admin: Admin;
  /** The usercache topic's producer; unused in a dry run. */
  producer: KeyedProducer;
  codec: AvroCodec;
  topicPrefix: string;
  /** Records scanned so far and in all (the range between the start and the end offsets captured at start). */
  onProgress?: (done: number, total: number) => void;
  /** Fail when no record arrives for this long before the end is reached. @defaultValue 60000 */
  idleTimeoutMs?: number;
}

/** The replay's consumer group, apart from the pipeline's, so a replay never moves the converter or trip builder. */
export function deadLetterReplayGroup(topicPrefix: string): string {
  return `${topicPrefix}dead-letter-replay`;
}

/** Bounds of the report: keys and reasons are client text (an unknown key is dead-lettered under its name). */
const KEYS = 1000;
const REASONS_PER_KEY = 20;
const REASON_CHARS = 200;
export const OTHER_KEYS = '(other keys)';
export const OTHER_REASONS = '(other reasons)';

interface Range {
  partition: number;
  start: number;
  /** The high-water mark when the replay started: the scan stops there. */
  end: number;
}

/** Start and end offsets per partition: `since` clamped to what the partition still holds, the end as of now. */
async function rangesOf(admin: Admin, topic: string, since: ReplaySince): Promise<Range[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  const starts = new Map<number, number>();
  if ('date' in since) {
    const ts = Date.parse(`${since.date}T00:00:00Z`);
    for (const p of await admin.fetchTopicOffsetsByTimestamp(topic, ts)) starts.set(p.partition, Number(p.offset));
  }
  return offsets
    .map((p) => {
      const low = Number(p.low);
      const end = Number(p.high);
      const wanted = 'date' in since ? (starts.get(p.partition) ?? end) : since.offset;
      return { partition: p.partition, start: Math.min(Math.max(wanted, low), end), end };
    })
    .sort((a, b) => a.partition - b.partition);
}

function newReport(dryRun: boolean): TopicReplayReport {
  return {
    dryRun,
    scanned: 0,
    matched: 0,
    replayed: 0,
    replayable: 0,
    notReplayable: 0,
    duplicates: 0,
    byKey: {},
  };
}

/**
 * Replays dead letters from the error-timeseries topic, which keeps them longer than the error table may (an
 * operator who cleared the table, or rows removed with an account's reset), and can be cut by time.
 *
 * The topic is read from `since` with a consumer group of its own (deadLetterReplayGroup; its offsets are set to
 * the start on every run, nothing of it is committed), up to the end offsets captured at start: what fails again
 * during the replay lands past them and is not read again, so a run is bounded. Each matching letter that still
 * holds its phone entry goes back to the usercache topic as the table replay sends it (replayMessage: keyed by
 * user, marked with REPLAY_HEADER), once per entry. The converter then handles it as any replay: an entry that
 * converts is upserted by identity and its error-table row is removed; one that fails again is written to the
 * table and the topic again. A dry run only counts.
 */
export async function replayDeadLetterTopic(
  deps: TopicReplayDeps,
  options: TopicReplayOptions,
): Promise<TopicReplayReport> {
  const dryRun = options.dryRun === true;
  const report = newReport(dryRun);
  const errorTopic = topicName(deps.topicPrefix, 'errorTimeseries');
  const usercache = topicName(deps.topicPrefix, 'usercache');
  const ranges = await rangesOf(deps.admin, errorTopic, options.since);
  const total = ranges.reduce((sum, r) => sum + (r.end - r.start), 0);
  deps.onProgress?.(0, total);
  if (total === 0) return report;

  const encode = dryRun ? undefined : await deps.codec.encoderFor(valueSubject(usercache));
  const reasonFilter = options.reason?.toLowerCase();
  // Entries already sent, to send each once; bounded: past it an entry seen long ago may be sent again, which the
  // converter's upsert by identity makes harmless.
  const seen = new LRUCache<string, true>({ max: SEEN_ENTRIES });
  const byKey = new Map<string, TopicReplayKeyCounts & { reasonCounts: Map<string, number> }>();
  const countsOf = (key: string) => {
    const k = byKey.has(key) || byKey.size < KEYS ? key : OTHER_KEYS;
    let counts = byKey.get(k);
    if (!counts) {
      counts = { matched: 0, replayed: 0, notReplayable: 0, reasons: {}, reasonCounts: new Map() };
      byKey.set(k, counts);
    }
    return counts;
  };
  let pending: KeyedRecord[] = [];
  let pendingBytes = 0;
  let pendingByKey: string[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    await deps.producer.send(usercache, pending);
    report.replayed += pending.length;
    for (const key of pendingByKey) countsOf(key).replayed += 1;
    pending = [];
    pendingBytes = 0;
    pendingByKey = [];
  };

  const visit = async (message: KafkaMessage) => {
    report.scanned += 1;
    let letter: DeadLetter | undefined;
    try {
      letter = await deps.codec.decode<DeadLetter>(message.value as Buffer);
    } catch (err) {
      if (isOutage(err)) throw err;
    }
    // A record of the topic that is no dead letter has no key or reason to match: it counts only when unfiltered.
    const key = letter?.key ?? UNDECODABLE_KEY;
    const reason = letter?.reason ?? 'not a dead letter record';
    if (options.key !== undefined && key !== options.key) return;
    if (reasonFilter !== undefined && !reason.toLowerCase().includes(reasonFilter)) return;
    report.matched += 1;
    const counts = countsOf(key);
    counts.matched += 1;
    const clipped = reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS)}…` : reason;
    const r = counts.reasonCounts.has(clipped) || counts.reasonCounts.size < REASONS_PER_KEY ? clipped : OTHER_REASONS;
    counts.reasonCounts.set(r, (counts.reasonCounts.get(r) ?? 0) + 1);
    if (!letter || !isReplayable(letter)) {
      report.notReplayable += 1;
      counts.notReplayable += 1;
      return;
    }
    const id = letterIdentity(letter);
    if (seen.has(id)) {
      report.duplicates += 1;
      return;
    }
    seen.set(id, true);
    report.replayable += 1;
    if (!encode) return;
    const replay = replayMessage(letter, encode);
    pending.push(replay);
    pendingByKey.push(key);
    pendingBytes += replay.value.length;
    if (pending.length >= LETTERS_PER_SEND || pendingBytes >= BYTES_PER_SEND) await flush();
  };

  await scanRanges(deps, errorTopic, ranges, async (messages) => {
    for (const m of messages) await visit(m);
    await flush();
    deps.onProgress?.(report.scanned, total);
  });

  report.byKey = Object.fromEntries(
    [...byKey].map(([key, { reasonCounts, ...counts }]) => [
      key,
      { ...counts, reasons: Object.fromEntries(reasonCounts) },
    ]),
  );
  return report;
}

/**
 * Reads [start, end) of every partition with the replay's own group, handing each batch's records in that range to
 * `handle` (one batch at a time), and resolves once every partition reached its end. Any failure stops the scan.
 */
async function scanRanges(
  deps: TopicReplayDeps,
  topic: string,
  ranges: readonly Range[],
  handle: (messages: KafkaMessage[]) => Promise<void>,
): Promise<void> {
  const groupId = deadLetterReplayGroup(deps.topicPrefix);
  const endOf = new Map(ranges.map((r) => [r.partition, r.end]));
  const left = new Set(ranges.filter((r) => r.start < r.end).map((r) => r.partition));
  // Offsets are set while the group has no member (Kafka refuses otherwise: one replay at a time).
  await deps.admin.setOffsets({
    groupId,
    topic,
    partitions: ranges.map((r) => ({ partition: r.partition, offset: String(r.start) })),
  });
  const consumer: Consumer = deps.kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    sessionTimeout: 10_000,
    rebalanceTimeout: 10_000,
    heartbeatInterval: 1_000,
    maxBytesPerPartition: 4 * 1024 * 1024,
    maxWaitTimeInMs: 500,
  });
  let settled = false;
  let settle!: (error?: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    settle = (error) => {
      settled = true;
      if (error === undefined) resolve();
      else reject(error);
    };
  });
  let lastActivity = Date.now();
  const idleMs = deps.idleTimeoutMs ?? 60_000;
  const watchdog = setInterval(
    () => {
      if (Date.now() - lastActivity > idleMs)
        settle(
          new Error(
            `no dead letter read for ${Math.round(idleMs / 1000)} s before the end of partitions ${[...left].join(', ')} of ${topic}`,
          ),
        );
    },
    Math.min(1000, idleMs),
  );
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) settle(payload.error);
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      // Nothing of this group is committed: each run sets its offsets. A handled batch is resolved (kafkajs' own
      // position), so the next fetch goes on from there; a skipped (stale) one is fetched again.
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        if (settled || !left.has(batch.partition) || !isRunning() || isStale()) return;
        lastActivity = Date.now();
        const end = endOf.get(batch.partition) ?? 0;
        try {
          await handle(batch.messages.filter((m) => Number(m.offset) < end));
          resolveOffset(batch.lastOffset());
          await heartbeat();
        } catch (err) {
          settle(err);
          return;
        }
        const last = Number(batch.lastOffset());
        if (last >= end - 1) {
          left.delete(batch.partition);
          consumer.pause([{ topic, partitions: [batch.partition] }]);
          if (left.size === 0) settle();
        }
      },
    });
    if (left.size === 0) settle();
    await finished;
  } finally {
    clearInterval(watchdog);
    await consumer.disconnect();
  }
}
