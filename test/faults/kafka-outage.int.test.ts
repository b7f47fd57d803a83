import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import { loadRealEntries, makeBatch, type PhoneEntry } from '../helpers/phone-entries.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { startConverter } from '../helpers/pipeline.js';
import { startPrivateServer, type PrivateServer } from '../helpers/private-server.js';
import { emissionFixturesDir } from '../helpers/fixtures.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

const PHONES = 4;
const PUTS_PER_PHONE = 12;
const ENTRIES_PER_PUT = 1_000;

let kafka: PrivateServer;
let env: TestEnv;
let gw: RunningGateway;
let converter: RunningConverter;

beforeAll(async () => {
  // A broker of this test's own: stopping the shared one would fail every other test running beside it.
  kafka = await startPrivateServer('kafka', 19092);
  env = await createTestEnv({ KAFKA_BROKERS: kafka.address });
  gw = await startGateway(env);
  converter = await startConverter(env);
}, 180_000);
afterAll(async () => {
  await converter?.stop();
  await gw?.close();
  await env?.dispose();
  await kafka?.dispose();
});

/** A put's answer: which phone sent it, its status (0: the connection failed), when it was sent and answered. */
interface Answer {
  phone: number;
  status: number;
  sent: number;
  at: number;
}

/** A phone as the app behaves: the same batch again after a 503 or a dropped connection, until it is taken. */
async function pushUntilAccepted(phone: number, token: string, batch: PhoneEntry[], answers: Answer[]): Promise<void> {
  for (;;) {
    const sent = Date.now();
    const res = await gw.post('/usercache/put', { user: token, phone_to_server: batch }).catch(() => undefined);
    answers.push({ phone, status: res?.status ?? 0, sent, at: Date.now() });
    if (res?.status === 200) return;
    if (res?.status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // The app waits Retry-After (30 s); the test retries sooner so the run stays short.
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('the Kafka broker stops during puts', () => {
  it('When the broker is stopped and restarted while phones push, then puts answer 503 until it is back, and after the retries every entry is stored exactly once', async () => {
    const real = loadRealEntries(emissionFixturesDir());
    const tokens = Array.from({ length: PHONES }, (_, i) => `outage-${i}@example.org`);
    const uuids: string[] = [];
    for (const token of tokens) uuids.push((await gw.post('/profile/create', { user: token })).body.uuid as string);

    const answers: Answer[] = [];
    let accepted = 0;
    const finished = new Set<number>();
    const expected: Record<string, number> = {};
    const phones = tokens.map(async (token, p) => {
      const entries = makeBatch(real, PUTS_PER_PHONE * ENTRIES_PER_PUT, p);
      for (const e of entries) {
        const key = String(e.metadata['key']).replace('background/activity', 'background/motion_activity');
        expected[key] = (expected[key] ?? 0) + 1;
      }
      for (let i = 0; i < entries.length; i += ENTRIES_PER_PUT) {
        await pushUntilAccepted(p, token, entries.slice(i, i + ENTRIES_PER_PUT), answers);
        accepted += 1;
      }
      finished.add(p);
    });

    // Stop the broker once some puts went through, so the outage falls in the middle of the stream.
    await waitFor(async () => (accepted >= PHONES ? true : undefined), 60_000, 'the first puts');
    await kafka.stop();
    const down = { from: Date.now(), to: Number.POSITIVE_INFINITY };
    // Down until every phone still pushing has been refused, so each has a put to retry once the broker is back.
    await waitFor(
      async () => {
        const refused = new Set(answers.filter((a) => a.status === 503 && a.at > down.from).map((a) => a.phone));
        return tokens.every((_, p) => refused.has(p) || finished.has(p)) ? true : undefined;
      },
      60_000,
      'a 503 for every phone still pushing during the outage',
    );
    const acceptedWhileDown = accepted;
    down.to = Date.now();
    await kafka.start();
    await Promise.all(phones);

    const total = PHONES * PUTS_PER_PHONE * ENTRIES_PER_PUT;
    const reader = createTimeseriesReader(env.cql);
    const countStored = async () => {
      const stored: Record<string, number> = {};
      for (const uuid of uuids) {
        for (const [key, n] of Object.entries(await reader.countByKey(uuid))) stored[key] = (stored[key] ?? 0) + n;
      }
      return stored;
    };
    const stored = await waitFor(
      async () => {
        const counts = await countStored();
        return Object.values(counts).reduce((a, b) => a + b, 0) >= total ? counts : undefined;
      },
      180_000,
      'every accepted entry in the timeseries',
    );
    // Only 200 and 503 (or a connection the test dropped itself): never a 500, never a 4xx for a good batch.
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503 && a.status !== 0)).toEqual([]);
    expect(acceptedWhileDown).toBeLessThan(PHONES * PUTS_PER_PHONE);
    // With no broker a put cannot be acknowledged: refused while it was down, none sent then taken before it was
    // back (that 200 would be a put answered without Kafka holding it), and taken again once it was.
    const refusedWhileDown = answers.filter((a) => a.status === 503 && a.at > down.from && a.at < down.to);
    expect(refusedWhileDown.length, '503s while the broker was down').toBeGreaterThan(0);
    expect(
      answers.filter((a) => a.status === 200 && a.sent > down.from && a.at < down.to),
      '200s while the broker was down',
    ).toEqual([]);
    expect(answers.filter((a) => a.status === 200 && a.at > down.to).length, '200s once it was back').toBeGreaterThan(
      0,
    );
    // Every retried put stored once: nothing a 503 refused is lost, nothing taken after retries is doubled.
    expect(stored).toEqual(expected);
  }, 420_000);
});
