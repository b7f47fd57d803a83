import fc from 'fast-check';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicSize } from '../helpers/read-topic.js';
import { stormRequest } from './arbitraries.js';
import { startBadInputStack, type BadInputStack } from './bad-input-stack.js';
import { createRawClient } from './raw-client.js';

/**
 * Ten thousand generated requests over every route, eight at a time: any method, nested and huge bodies, unicode
 * and control characters, prototype keys, absurd numbers and calendar dates. None may get a 5xx or hang (take more
 * than 15 s, twenty times the slowest seen on a loaded machine), every refusal names its problem, the topic grows by exactly the entries of the puts answered 200, and
 * each of those entries ends in the timeseries or the error timeseries once.
 */

const REQUESTS = Number(process.env['STORM_REQUESTS'] ?? 10_000);
const IN_FLIGHT = 8;
/** A hang bound, not a speed check: the slowest request takes 0.4-0.8 s here (its figure is in the log line). */
const SLOWEST_MS = 15_000;

let stack: BadInputStack;

beforeAll(async () => {
  stack = await startBadInputStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** The identities a 200 put stored: (user, type, key, write_ts in seconds). */
function acceptedIdentities(path: string, body: string): string[] {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const list = path.endsWith('putone') ? [parsed['the_entry']] : parsed['phone_to_server'];
  const ids = stack.identities(stack.uuids.get(parsed['user'] as string) ?? '?', list);
  if (ids.length === 0 && Array.isArray(list) && list.length > 0)
    throw new Error(`a 200 for a put the rules refuse: ${body.slice(0, 200)}`);
  return ids;
}

describe('request storm', () => {
  it(`When ${REQUESTS} hostile requests arrive ${IN_FLIGHT} at a time, then none gets a 5xx or hangs, refusals name their problem, and exactly the accepted entries are published and stored once`, async () => {
    const { env, gw } = stack;
    const client = createRawClient(gw.url, IN_FLIGHT);
    // The run's fast-check seed (test/helpers/fast-check-seed.ts) draws the requests, so FC_SEED replays them.
    const requests = fc.sample(stormRequest, { numRuns: REQUESTS });
    const replay = `replay with FC_SEED=${fc.readConfigureGlobal().seed} npm test`;
    const before = await topicSize(env, 'usercache');
    const limit = pLimit(IN_FLIGHT);
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let published = 0;
    let slowest = 0;
    const stored = new Set<string>();

    await Promise.all(
      requests.map((r) =>
        limit(async () => {
          const res = await client.send(r.method, r.path, r.body, r.contentType);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          slowest = Math.max(slowest, res.ms);
          const what = `${r.method} ${r.path} ${r.body.slice(0, 160)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
          if (res.status >= 500 || res.ms > SLOWEST_MS) failures.push(what);
          if (res.status >= 400 && r.method !== 'HEAD') {
            const message = res.body?.error?.message;
            if (typeof message !== 'string' || message.length < 6) failures.push(`unnamed refusal: ${what}`);
          }
          if (res.status === 200 && /^\/+usercache\/+put(one)?$/.test(r.path) && r.method === 'POST') {
            const ids = acceptedIdentities(r.path, r.body);
            published += ids.length;
            for (const id of ids) stored.add(id);
          }
        }),
      ),
    );
    client.close();
    console.log(
      `request storm: ${REQUESTS} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}, slowest ${Math.round(slowest)} ms`,
    );
    expect(failures.slice(0, 10), replay).toEqual([]);
    expect(await topicSize(env, 'usercache'), `refused puts publish nothing; ${replay}`).toBe(before + published);

    expect(await stack.settledCount(stored.size), replay).toBe(stored.size);
    // The storm exercised both sides.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThan(3);
  }, 600_000);
});
