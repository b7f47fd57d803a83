import type { Admin } from 'kafkajs';
import type { z } from 'zod';
import { groups, topics } from '../../../shared/events/index.js';
import type { GroupProgress } from '../api/schemas.js';
import {
  addSample,
  commitRate,
  isStalled,
  lastChangeAt,
  partitionLag,
  positionOf,
  samplesPerWindow,
  type CommitSample,
} from './pipeline-progress.js';

export type GroupProgressView = z.infer<typeof GroupProgress>;

/** A consumer group of the pipeline and the topics it consumes, both without the deployment's prefix. */
export interface PipelineGroupSpec {
  group: string;
  topics: readonly string[];
}

/** The pipeline's consumer groups (shared/events groups): the converter on usercache, the trip builder on timeseries. */
export const PIPELINE_GROUPS: readonly PipelineGroupSpec[] = [
  { group: groups.converter, topics: [topics.usercache] },
  { group: groups.tripBuilder, topics: [topics.timeseries] },
];

/** What the Pipeline page shows of the groups (the `Pipeline` answer without `behind`). Times are Unix seconds. */
export interface PipelineGroupsSnapshot {
  /** When the last successful sample was taken; null before the first. */
  sampledAt: number | null;
  stalledMinutes: number;
  /** One per group and topic, in the order of the `groups` option. */
  groups: GroupProgressView[];
}

export interface PipelineMonitorOptions {
  admin: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'>;
  topicPrefix: string;
  /** Unprefixed groups and topics to watch; the pipeline's are PIPELINE_GROUPS. */
  groups: readonly PipelineGroupSpec[];
  /** @defaultValue 5000 */
  sampleEveryMs?: number;
  /** The window the commit rate is measured over. @defaultValue 5 minutes */
  windowMs?: number;
  /** Lag and no commit for this long: stalled (console.stalled_minutes). @defaultValue 5 */
  stalledMinutes?: number;
  /** The clock, in milliseconds. @defaultValue Date.now */
  now?: () => number;
  /** A sample that failed (Kafka away): the previous snapshot stays, its sampledAt tells how old it is. */
  onError?: (error: unknown) => void;
}

export interface PipelineMonitor {
  /** Samples now, then every sampleEveryMs until stop(). */
  start(): void;
  /** Stops sampling; resolves once a sample in flight has ended. */
  stop(): Promise<void>;
  /** Takes one sample now (what start() runs on its timer); a call while one is in flight joins it. */
  sample(): Promise<void>;
  snapshot(): PipelineGroupsSnapshot;
}

interface PartitionTrack {
  samples: CommitSample[];
  committed: number;
  lastCommitAt: number | null;
}

interface GroupTrack {
  group: string;
  topic: string;
  watchedSince: number;
  partitions: Map<number, PartitionTrack>;
}

/**
 * Watches the pipeline's consumer groups from the console: every sampleEveryMs, each group's committed offsets
 * (admin.fetchOffsets) and each topic's end offsets (admin.fetchTopicOffsets), two requests per group and topic.
 * Per partition it keeps the (time, position) samples of the last windowMs (at most samplesPerWindow of them),
 * which give the commit rate, and when the committed offset last moved. Reads only: it never joins a group.
 */
export function createPipelineMonitor(options: PipelineMonitorOptions): PipelineMonitor {
  const sampleEveryMs = options.sampleEveryMs ?? 5000;
  const windowMs = options.windowMs ?? 5 * 60_000;
  const stalledMinutes = options.stalledMinutes ?? 5;
  const now = options.now ?? Date.now;
  const maxSamples = samplesPerWindow(windowMs, sampleEveryMs);
  const tracks: GroupTrack[] = options.groups.flatMap((g) =>
    g.topics.map((t) => ({
      group: `${options.topicPrefix}${g.group}`,
      topic: `${options.topicPrefix}${t}`,
      watchedSince: Number.NaN,
      partitions: new Map<number, PartitionTrack>(),
    })),
  );
  let current: PipelineGroupsSnapshot = { sampledAt: null, stalledMinutes, groups: [] };
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  async function takeSample(): Promise<void> {
    const topicNames = [...new Set(tracks.map((t) => t.topic))];
    const ends = new Map(
      await Promise.all(
        topicNames.map(async (topic) => [topic, await options.admin.fetchTopicOffsets(topic)] as const),
      ),
    );
    const committed = await Promise.all(
      tracks.map(async (t) => {
        const [offsets] = await options.admin.fetchOffsets({ groupId: t.group, topics: [t.topic] });
        return new Map((offsets?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      }),
    );
    const at = now();
    const views = tracks.map((track, i) => {
      if (Number.isNaN(track.watchedSince)) track.watchedSince = at;
      const partitions = [...(ends.get(track.topic) ?? [])]
        .sort((a, b) => a.partition - b.partition)
        .map((p) => {
          const low = Number(p.low);
          const end = Number(p.high);
          const offset = committed[i]!.get(p.partition) ?? -1;
          const previous = track.partitions.get(p.partition);
          const next: PartitionTrack = {
            samples: addSample(
              previous?.samples ?? [],
              { at, position: positionOf(offset, low) },
              windowMs,
              maxSamples,
            ),
            committed: offset,
            lastCommitAt: lastChangeAt(previous?.committed, offset, at, previous?.lastCommitAt ?? null),
          };
          return { partition: p.partition, low, end, track: next };
        });
      // Partitions that are gone are forgotten with their samples.
      track.partitions = new Map(partitions.map((p) => [p.partition, p.track]));
      const rows = partitions.map((p) => ({
        partition: p.partition,
        committed: p.track.committed,
        end: p.end,
        lag: partitionLag(p.track.committed, p.low, p.end),
        lastCommitAt: p.track.lastCommitAt === null ? null : p.track.lastCommitAt / 1000,
        rate: commitRate(p.track.samples),
      }));
      const lag = rows.reduce((sum, r) => sum + r.lag, 0);
      const changes = partitions.flatMap((p) => (p.track.lastCommitAt === null ? [] : [p.track.lastCommitAt]));
      const view: GroupProgressView = {
        group: track.group,
        topic: track.topic,
        lag,
        rate: rows.reduce((sum, r) => sum + r.rate, 0),
        stalled: isStalled({
          lag,
          lastProgressAt: changes.length > 0 ? Math.max(...changes) : null,
          watchedSince: track.watchedSince,
          now: at,
          stalledMinutes,
        }),
        partitions: rows,
      };
      return view;
    });
    current = { sampledAt: at / 1000, stalledMinutes, groups: views };
  }

  function sample(): Promise<void> {
    inFlight ??= takeSample().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  const sampleLogged = () =>
    sample().catch((error: unknown) => {
      options.onError?.(error);
    });

  return {
    start() {
      if (timer) return;
      void sampleLogged();
      timer = setInterval(() => void sampleLogged(), sampleEveryMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await inFlight?.catch(() => undefined);
    },
    sample,
    snapshot: () => current,
  };
}
