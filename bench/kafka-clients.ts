/**
 * BENCH_PARTS=kafka: the Kafka client and the record shape, side by side on the same Avro-encoded entries of 16
 * users: kafkajs (the consumers' client) and @platformatic/kafka (the producers' client: pure JavaScript, installed
 * from the npm registry alone), each sending a record per entry, as the gateway does, and a record per `GROUP` entries of one user (the
 * entries framed one after another in one value, as a put's entries for one user would travel). Every producer has
 * the project's settings: acks=all, idempotence, one request in flight, requests cut by requestChunks. Rounds alternate
 * so that neither client always meets a broker busy with the other's segments. @confluentinc/kafka-javascript is not
 * measured: its install downloads a prebuilt librdkafka from GitHub, or builds it from source when it cannot.
 */
import { randomUUID } from 'node:crypto';
import {
  Consumer as PlatformaticConsumer,
  MessagesStreamModes,
  ProduceAcks,
  Producer as PlatformaticProducer,
} from '@platformatic/kafka';
import type { Config } from '../shared/config/index.js';
import { topicName } from '../shared/events/index.js';
import { requestChunks } from '../shared/kafka/index.js';
import { createAvroCodec, createSchemaRegistry, valueSubject } from '../shared/schema-registry/index.js';
import { makeBatch, toPhoneRecord, type PhoneEntry } from '../test/helpers/phone-entries.js';
import { benchKafka, cpuMs } from './load.js';

export type Client = 'kafkajs' | '@platformatic/kafka';

export interface ClientRound {
  client: Client;
  entriesPerRecord: number;
  entriesPerS: number;
  /** CPU (user + system) of the sending process per 1,000 entries. */
  clientCpuMsPer1000: number;
  /** The broker's CPU per 1,000 entries over the same time. */
  brokerCpuMsPer1000: number;
}

export interface ConsumerRound {
  client: Client;
  records: number;
  recordsPerS: number;
  /** CPU (user + system) of the consuming process per 1,000 records. */
  clientCpuMsPer1000: number;
}

export interface KafkaClientFigures {
  entries: number;
  rounds: ClientRound[];
  /** Each client reading back everything the producers wrote, from the start, in a group of its own. */
  consumers: ConsumerRound[];
}

/** Entries one grouped record carries: about a put's worth for one user at the phone's usual sync. */
const GROUP = 500;

interface Message {
  key: Buffer;
  value: Buffer;
}

/** Entries of one user framed one after another, each behind its length: one record's value. */
function grouped(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i += GROUP) {
    const part = messages.slice(i, i + GROUP);
    const frames: Buffer[] = [];
    for (const m of part) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(m.value.length);
      frames.push(length, m.value);
    }
    out.push({ key: part[0]!.key, value: Buffer.concat(frames) });
  }
  return out;
}

type Send = (puts: readonly Message[][]) => Promise<void>;

async function kafkajsSender(config: Config, topic: string): Promise<{ send: Send; close: () => Promise<void> }> {
  const producer = benchKafka(config, 'bench-kafkajs').producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  return {
    // Requests cut as the keyed producer cuts them, the next built while the one before is in flight.
    send: async (puts) => {
      for (const put of puts) {
        let inFlight: Promise<unknown> | undefined;
        for (const request of requestChunks(put)) {
          if (inFlight) await inFlight;
          inFlight = producer.send({ topic, acks: -1, messages: request });
        }
        await inFlight;
      }
    },
    close: () => producer.disconnect(),
  };
}

/** What every @platformatic/kafka client of the bench is given: `config`'s brokers and SASL. */
function platformaticBase(config: Config, clientId: string) {
  const { sasl } = config.kafka;
  return {
    clientId,
    bootstrapBrokers: [...config.kafka.brokers],
    ...(sasl
      ? { sasl: { mechanism: sasl.mechanism.toUpperCase(), username: sasl.username, password: sasl.password } }
      : {}),
  };
}

async function platformaticSender(config: Config, topic: string): Promise<{ send: Send; close: () => Promise<void> }> {
  const producer = new PlatformaticProducer({
    ...platformaticBase(config, 'bench-platformatic'),
    idempotent: true,
    acks: ProduceAcks.ALL,
  } as ConstructorParameters<typeof PlatformaticProducer>[0]);
  return {
    // As the keyed producer does: the next request is built while the one before is in flight.
    send: async (puts) => {
      for (const put of puts) {
        let inFlight: Promise<unknown> | undefined;
        for (const request of requestChunks(put)) {
          const next = producer.send({ messages: request.map((m) => ({ topic, key: m.key, value: m.value })) });
          if (inFlight) await inFlight;
          inFlight = next;
        }
        await inFlight;
      }
    },
    close: () => producer.close(),
  };
}

/** Reads `records` records of `topic` from its start in a group of its own; resolves once all have come. */
type Consume = (config: Config, topic: string, records: number) => Promise<void>;

const kafkajsConsume: Consume = async (config, topic, records) => {
  const consumer = benchKafka(config, 'bench-kafkajs-consumer').consumer({
    groupId: `bench-kafkajs-${randomUUID()}`,
    maxBytesPerPartition: 4 * 1024 * 1024,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  await new Promise<void>((done, fail) => {
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          seen += batch.messages.length;
          if (seen >= records) done();
        },
      })
      .catch(fail);
  });
  await consumer.disconnect();
};

const platformaticConsume: Consume = async (config, topic, records) => {
  const consumer = new PlatformaticConsumer({
    ...platformaticBase(config, 'bench-platformatic-consumer'),
    groupId: `bench-platformatic-${randomUUID()}`,
  } as ConstructorParameters<typeof PlatformaticConsumer>[0]);
  const stream = await consumer.consume({
    topics: [topic],
    mode: MessagesStreamModes.EARLIEST,
    autocommit: false,
    maxBytesPerPartition: 4 * 1024 * 1024,
  });
  let seen = 0;
  await new Promise<void>((done, fail) => {
    stream.on('data', () => {
      seen += 1;
      if (seen === records) done();
    });
    stream.on('error', fail);
  });
  await stream.close();
  await consumer.close(true);
};

/**
 * `rounds` rounds of the four variants on `puts` puts of 10,000 entries (16 users in turn), into the usercache
 * topic of `config`.
 */
export async function benchKafkaClients(
  config: Config,
  real: PhoneEntry[],
  puts: number,
  kafkaPid: number | undefined,
  rounds = 2,
): Promise<KafkaClientFigures> {
  const codec = createAvroCodec(createSchemaRegistry(config.schemaRegistry));
  const topic = topicName(config.kafka.topicPrefix, 'usercache');
  const users = Array.from({ length: 16 }, () => randomUUID());
  const perEntry: Message[][] = [];
  for (let p = 0; p < puts; p += 1) {
    const user = users[p % users.length]!;
    perEntry.push(
      await Promise.all(
        makeBatch(real, 10_000, 3000 + p).map(async (e) => ({
          key: Buffer.from(user),
          value: await codec.encode(valueSubject(topic), toPhoneRecord(user, e)),
        })),
      ),
    );
  }
  const perGroup = perEntry.map(grouped);
  const entries = puts * 10_000;
  const senders: Record<Client, typeof kafkajsSender> = {
    kafkajs: kafkajsSender,
    '@platformatic/kafka': platformaticSender,
  };
  const admin = benchKafka(config, 'bench-offsets').admin();
  await admin.connect();
  const recordsInTopic = async () =>
    (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  const figures: ClientRound[] = [];
  for (let r = 0; r < rounds; r += 1) {
    for (const client of Object.keys(senders) as Client[]) {
      for (const [entriesPerRecord, load] of [
        [1, perEntry],
        [GROUP, perGroup],
      ] as const) {
        process.stdout.write(`bench: ${client}, ${entriesPerRecord} entries a record, round ${r + 1}…\n`);
        const sender = await senders[client](config, topic);
        const before = await recordsInTopic();
        const cpu0 = process.cpuUsage();
        const broker0 = cpuMs(kafkaPid);
        const t0 = performance.now();
        await sender.send(load);
        const seconds = (performance.now() - t0) / 1000;
        const cpu = process.cpuUsage(cpu0);
        const brokerMs = cpuMs(kafkaPid) - broker0;
        await sender.close();
        // A figure counts only if the broker holds every record sent, once.
        const stored = (await recordsInTopic()) - before;
        const sent = load.reduce((sum, put) => sum + put.length, 0);
        if (stored !== sent) throw new Error(`${client} sent ${sent} records and the topic gained ${stored}`);
        figures.push({
          client,
          entriesPerRecord,
          entriesPerS: Math.round(entries / seconds),
          clientCpuMsPer1000: Math.round(((cpu.user + cpu.system) / 1000 / entries) * 10_000) / 10,
          brokerCpuMsPer1000: Math.round((brokerMs / entries) * 10_000) / 10,
        });
      }
    }
  }
  const records = await recordsInTopic();
  await admin.disconnect();
  const consumes: Record<Client, Consume> = { kafkajs: kafkajsConsume, '@platformatic/kafka': platformaticConsume };
  const consumers: ConsumerRound[] = [];
  for (let r = 0; r < rounds; r += 1) {
    for (const client of Object.keys(consumes) as Client[]) {
      process.stdout.write(`bench: ${client} consumer, round ${r + 1}…\n`);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await consumes[client](config, topic, records);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      consumers.push({
        client,
        records,
        recordsPerS: Math.round(records / seconds),
        clientCpuMsPer1000: Math.round(((cpu.user + cpu.system) / 1000 / records) * 10_000) / 10,
      });
    }
  }
  return { entries, rounds: figures, consumers };
}

function consumerRows(f: KafkaClientFigures): string[] {
  const mean = (client: Client) => {
    const of = f.consumers.filter((c) => c.client === client);
    return of.reduce((a, c) => a + c.recordsPerS, 0) / of.length;
  };
  return (['kafkajs', '@platformatic/kafka'] as const).map((client) => {
    const each = f.consumers
      .filter((c) => c.client === client)
      .map((c) => `${c.recordsPerS} records/s (${c.clientCpuMsPer1000} ms CPU per 1,000)`)
      .join(' / ');
    return `| ${client} consumer, ${f.consumers[0]?.records.toLocaleString('en')} records from the start (a record per entry, some of 500) | ${each} | kafkajs consumer | ${(mean(client) / mean('kafkajs')).toFixed(2)} |`;
  });
}

export function kafkaClientRows(f: KafkaClientFigures): string[] {
  const variants = [...new Set(f.rounds.map((r) => `${r.client}|${r.entriesPerRecord}`))];
  const baseline = f.rounds.filter((r) => r.client === 'kafkajs' && r.entriesPerRecord === 1);
  const mean = (rs: ClientRound[]) => rs.reduce((a, r) => a + r.entriesPerS, 0) / rs.length;
  return variants
    .map((v) => {
      const [client, per] = v.split('|');
      const of = f.rounds.filter((r) => `${r.client}|${r.entriesPerRecord}` === v);
      const each = of
        .map(
          (r) =>
            `${r.entriesPerS} entries/s (client ${r.clientCpuMsPer1000} ms, broker ${r.brokerCpuMsPer1000} ms per 1,000)`,
        )
        .join(' / ');
      return `| ${client} producer, ${per === '1' ? 'a record per entry' : `${per} entries a record`}, ${f.entries.toLocaleString('en')} entries | ${each} | kafkajs, a record per entry | ${(mean(of) / mean(baseline)).toFixed(2)} |`;
    })
    .concat(consumerRows(f));
}
