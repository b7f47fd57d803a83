/**
 * A start-up step (connecting a client, looking up a schema) that many callers may ask for at the same moment: the
 * first call starts it and every caller shares that one attempt, so a cold service opens one connection, not one
 * per request. A success is kept. A failure is forgotten, so the next call tries again: a dependency that was away
 * when the first request came is reached once it is back, without a restart.
 */
export interface Once<T> {
  (): Promise<T>;
  /**
   * Drops what was kept, so the next call starts afresh: for a client that reports it lost its connection (kafkajs'
   * DISCONNECT event), whose connect() must run again.
   */
  forget(): void;
}

export function once<T>(start: () => Promise<T>): Once<T> {
  let kept: Promise<T> | undefined;
  const run = (): Promise<T> => {
    if (kept !== undefined) return kept;
    let attempt: Promise<T>;
    try {
      attempt = start();
    } catch (err) {
      return Promise.reject(err);
    }
    kept = attempt;
    // Only this attempt's own failure clears it: after a forget(), a newer attempt may already be kept.
    attempt.catch(() => {
      if (kept === attempt) kept = undefined;
    });
    return attempt;
  };
  return Object.assign(run, {
    forget: () => {
      kept = undefined;
    },
  });
}

/**
 * `once` for each key: a lookup per key (a schema per subject, a type per schema id) that concurrent callers share,
 * kept when it succeeds and asked again after a failure. Meant for keys of a small, fixed set: nothing is evicted.
 */
export function oncePerKey<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const byKey = new Map<K, Once<V>>();
  return (key) => {
    let entry = byKey.get(key);
    if (entry === undefined) {
      entry = once(() => load(key));
      byKey.set(key, entry);
    }
    return entry();
  };
}
