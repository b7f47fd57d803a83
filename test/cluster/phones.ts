/**
 * Phones of the cluster tests: each pushes a slice of a real day (a fresh user per slice) in small puts as the app
 * does, through one gateway of several (a load balancer's choice), moving to the next gateway when a connection
 * fails and sending the same batch again after a 503 until it is taken. Every answer is recorded.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { postTo } from '../helpers/gateway.js';
import { phoneEntries, REAL_DAYS } from '../helpers/real-days.js';

export type RealDay = (typeof REAL_DAYS)[number];

/**
 * A quarter of a real day's entries in write order (a few hours of it, ~250 entries; the days hold 413–1,482): a
 * phone pushes a slice every minute or two, so every fault meets new users at every phase of a day, and a test that
 * stops waits for each phone to finish a slice, not a whole day.
 */
export interface DaySlice {
  day: RealDay;
  part: number;
}

export const PARTS_PER_DAY = 4;
export const SLICES: readonly DaySlice[] = REAL_DAYS.flatMap((day) =>
  Array.from({ length: PARTS_PER_DAY }, (_, part) => ({ day, part })),
);
export const sliceName = ({ day, part }: DaySlice) => `${day}#${part}`;

export function sliceEntries({ day, part }: DaySlice): ReturnType<typeof phoneEntries> {
  const all = phoneEntries(day);
  const size = Math.ceil(all.length / PARTS_PER_DAY);
  return all.slice(part * size, (part + 1) * size);
}

export interface PutTally {
  /** Answers by status (0: no answer, the connection failed). */
  statuses: Map<number, number>;
  /** A 503 without a positive Retry-After, or any status but 200 and 503: never expected. */
  dishonest: string[];
  /** When each put was acknowledged (200), ms since the epoch. */
  acks: number[];
  /** Every answer but 200: when it came, its status and what the gateway said, to tell which fault caused it. */
  refusals: { at: number; status: number; said: string }[];
}

export function newTally(): PutTally {
  return { statuses: new Map(), dishonest: [], acks: [], refusals: [] };
}

export interface PushedUser {
  token: string;
  uuid: string;
  slice: DaySlice;
  /** Entries the timeseries must hold, by key: distinct (key, type, write_ts) identities of the slice, as stored. */
  expected: Record<string, number>;
}

/** What the pipeline stores of a slice: one row per (key, type, write_ts), background/activity renamed. */
export function expectedCounts(slice: DaySlice): Record<string, number> {
  const seen = new Set<string>();
  const counts: Record<string, number> = {};
  for (const e of sliceEntries(slice)) {
    const key = String(e.metadata.key).replace('background/activity', 'background/motion_activity');
    const identity = `${key}\u0000${String((e.metadata as Record<string, unknown>)['type'])}\u0000${String(e.metadata.write_ts)}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Waits `ms`, or until `stop` fires: a phone told to stop sends what is left of its slice without pausing. */
async function pause(ms: number, stop: AbortSignal | undefined): Promise<void> {
  // The only rejection is the abort, which ends the pause early.
  await sleep(ms, undefined, { signal: stop }).catch(() => undefined);
}

/** A phone's POST: no answer at all (a connection refused or reset, 150 s without an answer) is status 0. */
export async function post(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: any; headers: Headers | undefined }> {
  try {
    return await postTo(url, { timeoutMs: 150_000 })(path, body);
  } catch {
    return { status: 0, body: undefined, headers: undefined };
  }
}

/** The gateways behind one address, as a load balancer picks them: a failed connection moves to the next one. */
export class Gateways {
  constructor(readonly urls: readonly string[]) {}

  async post(start: number, path: string, body: unknown) {
    let res = await post(this.urls[start % this.urls.length]!, path, body);
    for (let i = 1; res.status === 0 && i < this.urls.length; i += 1)
      res = await post(this.urls[(start + i) % this.urls.length]!, path, body);
    return res;
  }
}

/** One put, again and again until it answers 200; every answer is tallied. */
async function putUntilAccepted(
  gateways: Gateways,
  phone: number,
  token: string,
  batch: unknown[],
  tally: PutTally,
): Promise<void> {
  for (;;) {
    const res = await gateways.post(phone, '/usercache/put', { user: token, phone_to_server: batch });
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    if (res.status === 200) {
      tally.acks.push(Date.now());
      return;
    }
    tally.refusals.push({ at: Date.now(), status: res.status, said: JSON.stringify(res.body ?? null).slice(0, 300) });
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
export async function createUser(gateways: Gateways, token: string, phone = 0): Promise<string> {
  for (let attempt = 0; attempt < 240; attempt += 1) {
    const res = await gateways.post(phone, '/profile/create', { user: token });
    if (res.status === 200 && typeof res.body?.uuid === 'string') return res.body.uuid as string;
    await sleep(500);
  }
  throw new Error(`profile/create for ${token} never answered 200`);
}

/**
 * Pushes one slice under a fresh user, `chunk` entries a put with `pauseMs` between puts until `stop` fires, then the
 * rest back to back.
 */
export async function pushSlice(
  gateways: Gateways,
  phone: number,
  token: string,
  slice: DaySlice,
  tally: PutTally,
  { chunk = 50, pauseMs = 0, stop }: { chunk?: number; pauseMs?: number; stop?: AbortSignal } = {},
): Promise<PushedUser> {
  const uuid = await createUser(gateways, token, phone);
  const entries = sliceEntries(slice);
  for (let i = 0; i < entries.length; i += chunk) {
    await putUntilAccepted(gateways, phone, token, entries.slice(i, i + chunk), tally);
    if (pauseMs > 0) await pause(pauseMs, stop);
  }
  return { token, uuid, slice, expected: expectedCounts(slice) };
}

/**
 * One phone: pushes a slice under a fresh user, then the next slice under another, until `stop` fires; the slice in
 * hand is then finished without pauses, so a test that stops the phones waits for their last puts to be answered,
 * not for a pause per put left. Returns the users it pushed.
 */
export async function runPhone(
  gateways: Gateways,
  phone: number,
  prefix: string,
  stop: AbortSignal,
  tally: PutTally,
  pace: { chunk: number; pauseMs: number; startAfterMs?: number },
): Promise<PushedUser[]> {
  const users: PushedUser[] = [];
  await pause(pace.startAfterMs ?? 0, stop);
  for (let n = 0; n === 0 || !stop.aborted; n += 1) {
    const slice = SLICES[(phone * 7 + n) % SLICES.length]!;
    users.push(
      await pushSlice(gateways, phone, `${prefix}-p${phone}-s${n}@cluster.itinera.org`, slice, tally, {
        ...pace,
        stop,
      }),
    );
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
