import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ConflictError, NotFoundError } from '../../../shared/errors/index.js';
import type { Logger } from '../../../shared/logger/index.js';
import type { Job } from '../api/schemas.js';
import { scopeCovers, scopeKey, type ProgramScope } from '../scope/program-scope.js';

type JobView = z.infer<typeof Job>;
export type JobKind = JobView['kind'];

/** What a running job may tell the page: how far it is, and lines of its result. */
export interface JobProgress {
  progress(done: number, total?: number | null): void;
  line(text: string): void;
}

/** Jobs kept for the pages to poll: the newest; older finished ones are forgotten. */
const KEPT = 50;
/** Lines one job keeps (the last ones). */
const MAX_LINES = 200;

/**
 * Long operator actions (replays, resets) run in the console's process after the request that started them has
 * been answered with the job; the page polls it. One of each kind runs at a time in each scope (the whole
 * deployment, or one program's admin's programs): a second click while a reset runs is refused, not queued behind
 * it, and a program's admin never waits for, nor learns of, another program's job.
 */
export function createJobRegistry(logger: Logger) {
  const jobs = new Map<string, JobView>();
  const scopes = new Map<string, ProgramScope>();

  function forget() {
    for (const [id, job] of jobs) {
      if (jobs.size <= KEPT) return;
      if (job.state !== 'running') {
        jobs.delete(id);
        scopes.delete(id);
      }
    }
  }

  return {
    /** Starts `work` as a job of `scope` (the caller's programs; absent: the whole deployment). */
    start(kind: JobKind, work: (p: JobProgress) => Promise<string[]>, scope?: ProgramScope): JobView {
      const slot = scopeKey(scope);
      const running = [...jobs.values()].find(
        (j) => j.kind === kind && j.state === 'running' && scopeKey(scopes.get(j.jobId)) === slot,
      );
      if (running)
        throw new ConflictError(`a ${kind} is already running (job ${running.jobId}): wait for it to end`, {
          details: { jobId: running.jobId },
        });
      const job: JobView = {
        jobId: randomUUID(),
        kind,
        state: 'running',
        startedAt: Date.now() / 1000,
        done: 0,
        total: null,
        lines: [],
      };
      jobs.set(job.jobId, job);
      scopes.set(job.jobId, scope);
      forget();
      const progress: JobProgress = {
        progress(done, total) {
          job.done = done;
          if (total !== undefined) job.total = total;
        },
        line(text) {
          job.lines.push(text);
          if (job.lines.length > MAX_LINES) job.lines.shift();
        },
      };
      work(progress).then(
        (lines) => {
          for (const l of lines) progress.line(l);
          job.state = 'done';
        },
        (err: unknown) => {
          job.state = 'failed';
          progress.line(`failed: ${err instanceof Error ? err.message : String(err)}`);
          logger.error('Console job failed', { kind, jobId: job.jobId, error: String(err) });
        },
      );
      return { ...job };
    },
    /** A job, if one started in a scope the `viewer`'s covers (another program's job is as unknown as none). */
    get(jobId: string, viewer?: ProgramScope): JobView {
      const job = jobs.get(jobId);
      if (!job || !scopeCovers(viewer, scopes.get(jobId))) throw new NotFoundError(`no job ${jobId}`);
      return { ...job, lines: [...job.lines] };
    },
  };
}
export type JobRegistry = ReturnType<typeof createJobRegistry>;
