import { createHash } from 'node:crypto';

/** An answer as sent, with what a cache in front of the gateway needs to keep it. */
export interface CachedAnswer {
  body: Buffer;
  etag: string;
  /** When the gateway computes it again (epoch ms); `max-age` counts down to it. */
  expiresAtMs: number;
}

export interface AnswerCache {
  /**
   * The answer under `key` made for `variant` (a program's configuration version), computed when there is none,
   * when it has expired or when the variant changed. Callers arriving while it is computed share that computation;
   * a failed one is not kept, so the next caller tries again.
   */
  get(key: string, variant: string, compute: () => Promise<string>): Promise<CachedAnswer>;
}

interface Entry {
  variant: string;
  /** Infinity while the answer is being computed. */
  expiresAtMs: number;
  answer: Promise<CachedAnswer>;
}

/**
 * Answers kept in memory for `ttlMs`, so a dashboard read by many (or by a crawler) costs one scan per program per
 * `ttlMs`. At most `maxEntries` keys are kept, the oldest dropped first; keys are served programs, so the bound is
 * only a guard.
 */
export function createAnswerCache({
  ttlMs,
  maxEntries = 1_000,
  now = Date.now,
}: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}): AnswerCache {
  const entries = new Map<string, Entry>();

  return {
    get(key, variant, compute) {
      const held = entries.get(key);
      if (held && held.variant === variant && now() < held.expiresAtMs) return held.answer;
      const entry: Entry = {
        variant,
        expiresAtMs: Infinity,
        answer: compute().then((text) => {
          entry.expiresAtMs = now() + ttlMs;
          const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
          return { body: Buffer.from(text), etag, expiresAtMs: entry.expiresAtMs };
        }),
      };
      entry.answer.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return entry.answer;
    },
  };
}
