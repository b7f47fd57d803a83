/**
 * The raw baselines the put and converter figures are ratios of: what Kafka and Cassandra alone sustain on this
 * machine for the same records and rows, with none of Itinera's work in the way.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../shared/config/index.js';
import { createCassandraClient, createCql } from '../shared/cassandra/index.js';
import { topicName } from '../shared/events/index.js';
import { createKeyedProducer } from '../shared/kafka/index.js';
import { createAvroCodec, createSchemaRegistry, valueSubject } from '../shared/schema-registry/index.js';
import { convertEntry } from '../services/converter/domain/convert-entry.js';
import { entryObjectId } from '../shared/ids/entry-identity.js';
import type { StoredEntry } from '../shared/timeseries/index.js';
import { createTimeseriesWriter } from '../services/converter/store/cassandra-timeseries-writer.js';
import { makeBatch, toPhoneRecord, toUsercacheEntry, type PhoneEntry } from '../test/helpers/phone-entries.js';

const PUT_SIZE = 10_000;

/**
 * The raw producer: the same Avro records, pre-encoded, sent 10,000 at a time through the gateway's own producer
 * (shared/kafka/keyed-producer.ts: acks=all, idempotence, the same 1 MiB requests; the broker refuses a 6 MB record
 * batch). The ratio is then the cost of the gateway's own work (HTTP, parsing, admission, encoding), not of a client.
 */
export async function benchRawProducer(real: PhoneEntry[], config: Config, batches: number): Promise<number> {
  const producer = createKeyedProducer({ ...config.kafka, clientId: 'bench-raw' });
  const codec = createAvroCodec(createSchemaRegistry(config.schemaRegistry));
  const topic = topicName(config.kafka.topicPrefix, 'usercache');
  const userIds = Array.from({ length: 16 }, () => randomUUID());
  const prepared = [];
  for (let b = 0; b < batches; b += 1) {
    const user = userIds[b % userIds.length] as string;
    prepared.push(
      await Promise.all(
        makeBatch(real, PUT_SIZE, 1000 + b).map(async (e) => ({
          key: Buffer.from(user),
          value: await codec.encode(valueSubject(topic), toPhoneRecord(user, e)),
        })),
      ),
    );
  }
  const t0 = performance.now();
  for (const messages of prepared) await producer.send(topic, messages);
  const rate = Math.round((batches * PUT_SIZE) / ((performance.now() - t0) / 1000));
  await producer.close();
  return rate;
}

/** `count` real-shaped entries of one user as the converter stores them (`seed` picks which). */
export function storedEntries(real: PhoneEntry[], count: number, seed: number, user: string): StoredEntry[] {
  return makeBatch(real, count, seed).flatMap((e) => {
    const r = convertEntry(toUsercacheEntry(e));
    if (!r.ok) return [];
    const oid = entryObjectId(user, r.entry.type, r.entry.key, r.entry.writeTs);
    return [
      {
        userId: user,
        key: r.entry.key,
        type: r.entry.type,
        writeTs: r.entry.writeTs,
        dataTs: r.entry.dataTs,
        oid,
        entryJson: JSON.stringify({ metadata: r.entry.metadata, data: r.entry.data }),
      },
    ];
  });
}

/**
 * The raw Cassandra rate: the same rows the converter writes, in the same per-partition unlogged batches, with
 * no Kafka, no Avro and no conversion in the way: what Cassandra alone sustains on this machine.
 */
export async function benchRawCassandra(real: PhoneEntry[], config: Config, entries: number): Promise<number> {
  const client = createCassandraClient({ ...config.cassandra });
  const stored = storedEntries(real, entries, 5000, randomUUID());
  const writer = createTimeseriesWriter(createCql(client));
  const t0 = performance.now();
  for (let i = 0; i < stored.length; i += 5000) await writer.write(stored.slice(i, i + 5000));
  const rate = Math.round(stored.length / ((performance.now() - t0) / 1000));
  await client.shutdown();
  return rate;
}
