export type TruncMethod = 'first' | 'last' | 'sample';

/**
 * `/datastreams/find_entries`'s `max_entries` + `trunc_method`, as e-mission means them: `first` keeps the
 * head, `last` the tail, `sample` every (len // n + 1)-th entry. (e-mission answers 500 for `first` through a
 * fall-through bug; we do what the name says.)
 */
export function truncateEntries<T>(entries: readonly T[], maxEntries: number | undefined, method: TruncMethod): T[] {
  if (maxEntries === undefined || entries.length <= maxEntries) return [...entries];
  if (method === 'first') return entries.slice(0, maxEntries);
  if (method === 'last') return entries.slice(entries.length - maxEntries);
  const step = Math.floor(entries.length / maxEntries) + 1;
  return entries.filter((_, i) => i % step === 0);
}
