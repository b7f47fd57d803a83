import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../../shared/events/index.js';
import { createProgramConfigsTable, createUsersTable } from '../../../shared/tables/index.js';
import { runCli } from '../../../test/helpers/pipeline.js';
import { seedLocations } from '../../../test/helpers/reads.js';
import { createTestEnv, type TestEnv } from '../../../test/helpers/test-env.js';
import { createProgramManager } from '../../../shared/programs/manage-programs.js';
import type { Session } from '../session.js';
import { archiveProgram } from './program-archive.js';

let env: TestEnv;
let admin: Admin;
let session: Session;
const by = 'operator@itinera.test';
const DAY = 1_700_006_400;
const quick = { WEBSERVER_PROGRAM_REFRESH_S: '0.2' };

beforeAll(async () => {
  env = await createTestEnv(quick);
  admin = env.kafka.admin();
  await admin.connect();
  session = { config: env.config, kafka: env.kafka, admin, cql: env.cql, codec: env.codec };
});
afterAll(async () => {
  await admin?.disconnect();
  await env?.dispose();
});

const programs = () => createProgramManager(createProgramConfigsTable(env.cql));
const users = () => createUsersTable(env.cql, { cacheEntries: 1 });
const usercache = () => topicName(env.config.kafka.topicPrefix, 'usercache');
const converter = () => groupName(env.config.kafka.topicPrefix, 'converter');

async function participantOf(program: string, name: string): Promise<string> {
  const { user } = await users().register(`nrelop_${program}_default_${name}`);
  await seedLocations(env.cql, user.uuid, DAY + 300, 24, 3600);
  return user.uuid;
}

/** A put a gateway accepted that the converter (not running here) has not consumed. */
async function acceptedNotConsumed(): Promise<void> {
  const producer = env.kafka.producer();
  await producer.connect();
  await producer.send({ topic: usercache(), messages: [{ key: 'someone', value: 'an entry' }] });
  await producer.disconnect();
}

/** The converter group as it is once it has consumed everything on usercache. */
async function converterCaughtUp(): Promise<void> {
  const ends = await admin.fetchTopicOffsets(usercache());
  await admin.setOffsets({
    groupId: converter(),
    topic: usercache(),
    partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })),
  });
}

const receiptIn = (out: string) => {
  const name = readdirSync(out).find((f) => /^receipt-.*\.json$/.test(f));
  return name === undefined ? undefined : JSON.parse(readFileSync(join(out, name), 'utf8'));
};

describe('npx itinera program archive, in order', () => {
  it('When --out already holds files, then the archive is refused before the program is closed', async () => {
    await programs().create({ program: 'crowded', document: JSON.stringify({ version: 1 }), by });
    const out = mkdtempSync(join(tmpdir(), 'itinera-archive-'));
    writeFileSync(join(out, 'earlier.ndjson'), '{}\n');
    const refused = await runCli(env, ['program', 'archive', 'crowded', '--out', out, '--yes'], quick).catch((e) => e);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/holds 1 files or folders: give a new or empty folder/);
    expect(JSON.parse((await programs().show('crowded')).document).itinera).toBeUndefined();
  });

  it('When the pipeline has not consumed what was accepted before the close, then nothing is exported or deleted, and the receipt says how far it got', async () => {
    await programs().create({ program: 'lagging', document: JSON.stringify({ version: 1 }), by });
    const uuid = await participantOf('lagging', 'l1');
    await acceptedNotConsumed();
    const out = join(mkdtempSync(join(tmpdir(), 'itinera-archive-')), 'new');
    await expect(archiveProgram(session, 'lagging', out, true, { pipelineWaitMs: 1_000 })).rejects.toThrow(
      /converter group is still \d+ records behind/,
    );
    expect(await users().findByUuid(uuid)).toBeDefined();
    expect(readdirSync(out).filter((f) => !f.startsWith('receipt-'))).toEqual([]);
    expect(receiptIn(out)).toMatchObject({
      stage: 'waiting for the pipeline',
      complete: false,
      closed_with_version: 2,
      deleted: [],
      stopped: expect.stringMatching(/behind/),
    });
    expect(JSON.parse((await programs().show('lagging')).document).itinera).toMatchObject({ closed: true });
  });

  it('When a participant registers while the archive waits for the pipeline, then they are exported and deleted too', async () => {
    await programs().create({ program: 'late', document: JSON.stringify({ version: 1 }), by });
    const early = await participantOf('late', 'e1');
    await acceptedNotConsumed();
    const out = mkdtempSync(join(tmpdir(), 'itinera-archive-'));
    const archived = archiveProgram(session, 'late', out, true, { pipelineWaitMs: 60_000 });
    const deadline = Date.now() + 20_000;
    while (receiptIn(out)?.stage !== 'waiting for the pipeline') {
      if (Date.now() > deadline) throw new Error('the archive never waited for the pipeline');
      await new Promise((r) => setTimeout(r, 50));
    }
    // A gateway that had not yet read the closing version took one more registration.
    const late = await participantOf('late', 'z9');
    await converterCaughtUp();
    expect(await archived).toBe(0);
    const receipt = receiptIn(out);
    expect(receipt).toMatchObject({ stage: 'complete', complete: true, participants: 2 });
    expect(receipt.deleted.map((d: { uuid: string }) => d.uuid).sort()).toEqual([early, late].sort());
    expect(receipt.files.filter((f: { path: string }) => f.path.startsWith('ndjson/'))).toHaveLength(2);
    expect(await users().findByUuid(late)).toBeUndefined();
  });
});
