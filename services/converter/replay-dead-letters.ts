import type { Admin, Producer } from 'kafkajs';
import { groupName, topicName, type UsercacheRecord } from '../../shared/events/index.js';
import { groupProgress, sendChunked } from '../../shared/kafka/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { DeadLetter, ErrorTimeseries } from '../../shared/timeseries/index.js';
import { REPLAY_HEADER } from './handler.js';

export interface ReplayReport {
  /** Per metadata.key: how many were replayed, moved to the timeseries, and still failing. */
  byKey: Record<string, { replayed: number; moved: number; stillFailing: number }>;
  /** Dead letters that cannot be replayed (the record itself was not decodable). */
  notReplayable: number;
  /** False when the converter did not catch up within the wait; counts are then provisional. */
  caughtUp: boolean;
}

export interface ReplayDeps {
  errors: ErrorTimeseries;
  producer: Producer;
  admin: Admin;
  codec: AvroCodec;
  topicPrefix: string;
  /** Milliseconds to wait for the converter to process the replayed entries. @defaultValue 120000 */
  waitMs?: number;
  onProgress?: (done: number, total: number) => void;
}

function identity(l: Pick<DeadLetter, 'user_id' | 'key' | 'write_ts' | 'type'>): string {
  return `${l.user_id}|${l.key}|${l.write_ts}|${l.type}`;
}

/**
 * The spec's fix_usercache_processing: every dead letter goes back into the usercache topic (marked as a replay),
 * the converter tries it again, and what converts now leaves the error table. Safe to repeat until no errors
 * remain: a replayed entry that converts is upserted by identity, one that fails again overwrites its error row.
 */
export async function replayDeadLetters(deps: ReplayDeps): Promise<ReplayReport> {
  const usercache = topicName(deps.topicPrefix, 'usercache');
  const letters: DeadLetter[] = [];
  for await (const l of deps.errors.all()) letters.push(l);
  const replayable = letters.filter((l) => l.key !== '(undecodable)');
  const report: ReplayReport = { byKey: {}, notReplayable: letters.length - replayable.length, caughtUp: true };
  if (replayable.length === 0) return report;

  for (let i = 0; i < replayable.length; i += 1000) {
    const chunk = replayable.slice(i, i + 1000);
    const messages = await Promise.all(
      chunk.map(async (l) => ({
        key: l.user_id,
        headers: { [REPLAY_HEADER]: '1' },
        value: await deps.codec.encode(valueSubject(usercache), {
          // The dead letter keeps the entry exactly as published, so the replay is the same record again.
          user_id: l.user_id,
          key: l.key,
          type: l.type,
          write_ts: l.write_ts,
          platform: (JSON.parse(l.metadata_json) as { platform?: string }).platform ?? null,
          received_ts: Date.now() / 1000,
          metadata_json: l.metadata_json,
          data_json: l.data_json,
        } satisfies UsercacheRecord),
      })),
    );
    await sendChunked(deps.producer, usercache, messages);
    deps.onProgress?.(Math.min(i + 1000, replayable.length), replayable.length);
  }

  // Wait until the converter group has committed up to the end of the topic as it was after the replay.
  const group = groupName(deps.topicPrefix, 'converter');
  const target = (await groupProgress(deps.admin, group, usercache)).partitions;
  const deadline = Date.now() + (deps.waitMs ?? 120_000);
  report.caughtUp = false;
  while (Date.now() < deadline) {
    const committed = new Map(
      (await groupProgress(deps.admin, group, usercache)).partitions.map((p) => [p.partition, p.committed]),
    );
    if (target.every(({ partition, high }) => high === 0 || (committed.get(partition) ?? -1) >= high)) {
      report.caughtUp = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const remaining = new Set<string>();
  for await (const l of deps.errors.all()) remaining.add(identity(l));
  for (const l of replayable) {
    const counts = (report.byKey[l.key] ??= { replayed: 0, moved: 0, stillFailing: 0 });
    counts.replayed += 1;
    if (remaining.has(identity(l))) counts.stillFailing += 1;
    else counts.moved += 1;
  }
  return report;
}
