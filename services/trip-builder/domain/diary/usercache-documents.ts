/** Documents the phone keeps whatever the diary does (e-mission's valid list). */
export const RETAINED_DOCUMENT_KEYS: readonly string[] = [
  'config/sensor_config',
  'config/sync_config',
  'config/consent',
];

/** How many days back from the user's latest trip the phone's usercache holds diary documents. */
export const RECENT_DIARY_DAYS = 7;

export function diaryKey(localDate: string): string {
  return `diary/trips-${localDate}`;
}

/**
 * The document keys to remove after writing `written`: every key not just written and not a retained config,
 * which clears older days and the obsolete `common-trips` document.
 */
export function obsoleteKeys(existing: readonly string[], written: readonly string[]): string[] {
  const valid = new Set([...written, ...RETAINED_DOCUMENT_KEYS]);
  return existing.filter((k) => !valid.has(k));
}

/** The local dates within RECENT_DIARY_DAYS before `latest` (inclusive), given as YYYY-MM-DD strings. */
export function recentDays(days: readonly string[], latest: string): string[] {
  const latestMs = Date.parse(`${latest}T00:00:00Z`);
  return days.filter((d) => {
    const ms = Date.parse(`${d}T00:00:00Z`);
    return ms <= latestMs && latestMs - ms < RECENT_DIARY_DAYS * 86_400_000;
  });
}
