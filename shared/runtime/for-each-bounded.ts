import pLimit from 'p-limit';

/**
 * Runs `work` on every item, at most `concurrency` at once (p-limit), and settles when all of it has. The first
 * failure stops the rest: no further item starts, `signal` is aborted so those running may stop early, and once
 * every started item has settled that failure is thrown. So when this returns or throws nothing it started is
 * still running: a Kafka batch retried after an outage never overlaps the rest of its failed attempt.
 */
export async function forEachBounded<T>(
  items: Iterable<T>,
  concurrency: number,
  work: (item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const failed = new AbortController();
  let failure: { error: unknown } | undefined;
  await pLimit(concurrency).map(items, async (item) => {
    if (failure) return;
    try {
      await work(item, failed.signal);
    } catch (error) {
      if (failure) return;
      failure = { error };
      failed.abort(error);
    }
  });
  if (failure) throw failure.error;
}
