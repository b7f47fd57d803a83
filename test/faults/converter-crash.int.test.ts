import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import { loadRealEntries, makeBatch } from '../helpers/phone-entries.js';
import { inputProducer, killMidWork, type Kill, startServiceProcess, usercacheMessages } from '../helpers/pipeline.js';
import { emissionFixturesDir } from '../helpers/fixtures.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

/**
 * Enough that every kill lands while tens of thousands of entries wait uncommitted (each life of the converter commits
 * about 10,000 before the next kill), and no more: the rest of the file's time is converting them.
 */
const ENTRIES = 50_000;
const USERS = 10;
const logDir = mkdtempSync(join(tmpdir(), 'itinera-crash-'));
const outFile = join(logDir, 'converter.out');

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.dispose();
});

const startConverterProcess = () => startServiceProcess(env, 'services/converter/main.ts', outFile, logDir);

describe('converter crashes', () => {
  it('When the converter is SIGKILLed three times while 50,000 entries stream through, then exactly 50,000 rows exist, counted by key', async () => {
    const real = loadRealEntries(emissionFixturesDir());
    const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
    const users = Array.from({ length: USERS }, () => randomUUID());
    const expected: Record<string, number> = {};
    const producer = inputProducer(env);
    const admin = env.kafka.admin();
    await admin.connect();
    const group = groupName(env.config.kafka.topicPrefix, 'converter');
    const committedAndHigh = () => groupProgress(admin, group, topic);

    // Stream the entries in while the converter runs and dies.
    const streaming = (async () => {
      for (const [u, user] of users.entries()) {
        const batch = makeBatch(real, ENTRIES / USERS, u);
        for (const e of batch) {
          const key = String(e.metadata['key']);
          expected[key] = (expected[key] ?? 0) + 1;
        }
        for (let i = 0; i < batch.length; i += 2500) {
          await producer.send(topic, await usercacheMessages(env, user, batch.slice(i, i + 2500)));
        }
      }
    })();

    const kills: Kill[] = [];
    let converter = startConverterProcess();
    for (let k = 0; k < 3; k += 1) {
      // Kill once it has made progress and entries wait that it has not committed, so the crash lands mid-work.
      const before = (await committedAndHigh()).committed;
      const atKill = await waitFor(
        async () => {
          const now = await committedAndHigh();
          return now.committed > before && now.high > now.committed ? now : undefined;
        },
        120_000,
        'converter progress',
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\nconverter output:\n${readFileSync(outFile, 'utf8').slice(-3000)}`);
      });
      kills.push(await killMidWork(converter, atKill.high, committedAndHigh));
      converter = startConverterProcess();
    }
    await streaming;
    await producer.close();
    await waitFor(
      async () => {
        const { committed, high } = await committedAndHigh();
        return high === ENTRIES && committed === high ? true : undefined;
      },
      240_000,
      'the converter to finish',
    );
    converter.kill('SIGTERM');
    await new Promise((r) => (converter.exitCode !== null ? r(null) : converter.once('exit', r)));
    await admin.disconnect();

    const reader = createTimeseriesReader(env.cql);
    const stored: Record<string, number> = {};
    for (const user of users) {
      for (const [key, n] of Object.entries(await reader.countByKey(user))) stored[key] = (stored[key] ?? 0) + n;
    }
    const real_ = Object.fromEntries(
      Object.entries(expected).map(([k, n]) => [k === 'background/activity' ? 'background/motion_activity' : k, n]),
    );
    // Each kill ended the process by SIGKILL, not an exit of its own, and left entries that were waiting for it
    // uncommitted: the crash interrupted its work, and the next process had that work to do again.
    expect(kills.map((k) => k.signal)).toEqual(['SIGKILL', 'SIGKILL', 'SIGKILL']);
    expect(kills.filter((k) => k.uncommitted <= 0)).toEqual([]);
    expect(stored).toEqual(real_);
    expect(Object.values(stored).reduce((a, b) => a + b, 0)).toBe(ENTRIES);
  }, 480_000);
});
