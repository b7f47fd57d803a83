import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../shared/config/repo-root.js';
import { startTsOf, toTimeseriesRecord, type TimeseriesRecord } from '../../shared/events/index.js';
import { createAvroCodec, createSchemaRegistry, registerAvro } from '../../shared/schema-registry/index.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';

/** The timeseries record before it became a notice: the whole converted entry, always. */
const BEFORE_NOTICES = JSON.stringify({
  type: 'record',
  name: 'TimeseriesEntry',
  namespace: 'org.itinera',
  fields: [
    { name: 'user_id', type: 'string' },
    { name: 'key', type: 'string' },
    { name: 'type', type: 'string' },
    { name: 'write_ts', type: 'double' },
    { name: 'data_ts', type: ['null', 'double'], default: null },
    { name: 'entry_json', type: 'string' },
  ],
});

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.dispose();
});

describe('timeseries topic: notices replace whole entries', () => {
  it('When a subject registered before notices is provisioned again, then the registry takes the notice schema and records of both decode, with the start of a label', async () => {
    const registry = createSchemaRegistry(env.config.schemaRegistry);
    const subject = `upgrade-${randomUUID()}-value`;
    await registerAvro(registry, subject, BEFORE_NOTICES);
    const codec = createAvroCodec(registry);
    const old = await codec.encode(subject, {
      user_id: 'u',
      key: 'manual/mode_confirm',
      type: 'message',
      write_ts: 20,
      data_ts: null,
      entry_json: JSON.stringify({ data: { start_ts: 10, end_ts: 15, label: 'walk' } }),
    });

    // What provision() does with the file on every start.
    const schema = readFileSync(join(repoRoot, 'schemas', 'avro', 'timeseries-entry.avsc'), 'utf8');
    await registerAvro(registry, subject, schema);
    const entryJson = JSON.stringify({ data: { start_ts: 11, end_ts: 16, label: 'bike' } });
    const stored = { userId: 'u', key: 'manual/mode_confirm', type: 'message', writeTs: 21, dataTs: null, entryJson };
    const notice = await createAvroCodec(registry).encode(subject, toTimeseriesRecord(stored, 11));
    const location = {
      ...stored,
      key: 'background/location',
      type: 'sensor-data',
      dataTs: 21,
      entryJson: '{"data": {}}',
    };
    const fixNotice = await createAvroCodec(registry).encode(subject, toTimeseriesRecord(location, null));

    const encoded = [old, notice, fixNotice];
    const records = await Promise.all(encoded.map((b) => codec.decode<TimeseriesRecord>(b)));
    expect(records.map(startTsOf)).toEqual([10, 11, undefined]);
    expect(records[1]).toMatchObject({ entry_json: entryJson, start_ts: 11, write_ts: 21 });
    expect(records[2]).toMatchObject({ entry_json: null, start_ts: null, data_ts: 21 });
  });
});
