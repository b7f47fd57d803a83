/**
 * Phones of the cluster fault test: each pushes real days (a fresh user per day) in small puts as the app does,
 * sending the same batch again after a 503 or a dropped connection until it is taken, and records every answer.
 */
import { phoneEntries, REAL_DAYS } from '../helpers/real-days.js';

export type RealDay = (typeof REAL_DAYS)[number];

export interface PutTally {
  /** Answers by status (0: no answer, the connection failed). */
  statuses: Map<number, number>;
  /** A 503 without a positive Retry-After, or any status but 200 and 503: never expected. */
  dishonest: string[];
  /** When each put was acknowledged (200), ms since the epoch. */
  acks: number[];
}

export function newTally(): PutTally {
  return { statuses: new Map(), dishonest: [], acks: [] };
}

export interface PushedUser {
  token: string;
  uuid: string;
  day: RealDay;
  /** Entries the timeseries must hold, by key: distinct (key, type, write_ts) identities of the day, as stored. */
  expected: Record<string, number>;
}

/** What the pipeline stores of a real day: one row per (key, type, write_ts), background/activity renamed. */
export function expectedCounts(day: RealDay): Record<string, number> {
  const seen = new Set<string>();
  const counts: Record<string, number> = {};
  for (const e of phoneEntries(day)) {
    const key = String(e.metadata.key).replace('background/activity', 'background/motion_activity');
    const identity = `${key}\u0000${String((e.metadata as Record<string, unknown>)['type'])}\u0000${String(e.metadata.write_ts)}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function post(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: any; headers: Headers | undefined }> {
  try {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(150_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  } catch {
    return { status: 0, body: undefined, headers: undefined };
  }
}

/** One put, again and again until it answers 200; every answer is tallied. */
async function putUntilAccepted(url: string, token: string, batch: unknown[], tally: PutTally): Promise<void> {
  for (;;) {
    const res = await post(url, '/usercache/put', { user: token, phone_to_server: batch });
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    if (res.status === 200) {
      tally.acks.push(Date.now());
      return;
    }
    if (res.status === 503) {
      if (!(Number(res.headers?.get('retry-after')) > 0)) tally.dishonest.push('503 without Retry-After');
    } else if (res.status !== 0) {
      tally.dishonest.push(`${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    // The app waits Retry-After (30 s); the test retries sooner so a cycle stays short.
    await sleep(500);
  }
}

/** Creates the user (again until it answers 200) and returns its uuid. */
export async function createUser(url: string, token: string): Promise<string> {
  for (let attempt = 0; attempt < 240; attempt += 1) {
    const res = await post(url, '/profile/create', { user: token });
    if (res.status === 200 && typeof res.body?.uuid === 'string') return res.body.uuid as string;
    await sleep(500);
  }
  throw new Error(`profile/create for ${token} never answered 200`);
}

/**
 * One phone: pushes a real day under a fresh user, then the next day under another, until `keepGoing()` is false
 * once a day is complete. Returns the users it pushed.
 */
export async function runPhone(
  url: string,
  phone: number,
  prefix: string,
  keepGoing: () => boolean,
  tally: PutTally,
  { chunk = 100, pauseMs = 200 } = {},
): Promise<PushedUser[]> {
  const users: PushedUser[] = [];
  for (let n = 0; n === 0 || keepGoing(); n += 1) {
    const day = REAL_DAYS[(phone + n) % REAL_DAYS.length]!;
    const token = `${prefix}-p${phone}-d${n}@cluster.itinera.org`;
    const uuid = await createUser(url, token);
    const entries = phoneEntries(day);
    for (let i = 0; i < entries.length; i += chunk) {
      await putUntilAccepted(url, token, entries.slice(i, i + chunk), tally);
      await sleep(pauseMs);
    }
    users.push({ token, uuid, day, expected: expectedCounts(day) });
  }
  return users;
}

/** The longest time between two consecutive acknowledged puts, in ms. */
export function longestGap(acks: readonly number[]): number {
  const sorted = [...acks].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < sorted.length; i += 1) longest = Math.max(longest, sorted[i]! - sorted[i - 1]!);
  return longest;
}
