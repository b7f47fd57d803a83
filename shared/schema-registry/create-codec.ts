import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { Config } from '../config/index.js';
import { MalformedRecordError } from '../errors/index.js';
import { oncePerKey } from '../runtime/once.js';

/**
 * Avro encoding through a Confluent-compatible registry (Apicurio's ccompat API locally). Messages carry the
 * Confluent wire header (magic byte + schema id), so any Confluent consumer can read our topics.
 */
export interface AvroCodec {
  encode(subject: string, value: unknown): Promise<Buffer>;
  /**
   * A synchronous encoder for the subject's latest schema, for encoding many values at once (a 10,000-entry put):
   * no promise and no fresh buffer per value; each result is a view into a shared pool.
   */
  encoderFor(subject: string): Promise<(value: unknown) => Buffer>;
  decode<T>(buffer: Buffer): Promise<T>;
}

/** The avsc type the registry library hands out for an Avro schema (the part of it we use). */
interface AvroType {
  encode(value: unknown, buffer: Buffer, position: number): number;
  decode(buffer: Buffer, position: number): { value: unknown; offset: number };
}

const MAGIC_BYTE = 0;
const HEADER_BYTES = 5;
const POOL_BYTES = 1024 * 1024;

/** A registry client for `config.schemaRegistry`: its URL and, if the registry asks for them, basic-auth credentials. */
export function createSchemaRegistry({ url, credentials }: Config['schemaRegistry']): SchemaRegistry {
  return new SchemaRegistry({ host: url, ...(credentials ? { auth: { ...credentials } } : {}) });
}

/** Subject of a topic's values under the default TopicNameStrategy. */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}

export async function registerAvro(registry: SchemaRegistry, subject: string, schemaJson: string): Promise<number> {
  const { id } = await registry.register({ type: SchemaType.AVRO, schema: schemaJson }, { subject });
  return id;
}

export function createAvroCodec(registry: SchemaRegistry): AvroCodec {
  // Lookups are shared, not repeated: the first put encodes thousands of records at once, and each must not ask
  // the registry itself (10,000 HTTP calls on a cold gateway). A failed lookup is asked again on the next call.
  const known = new Map<number, AvroType>();
  const schemaId = oncePerKey((subject: string) => registry.getLatestSchemaId(subject));
  const typeOf = oncePerKey(async (id: number) => {
    const type = (await registry.getSchema(id)) as unknown as AvroType;
    known.set(id, type);
    return type;
  });

  // One encoder (and so one pool) per subject, shared by every caller: encode() is synchronous, so concurrent puts
  // never write the same region, and a one-record call does not allocate a fresh 1 MiB pool.
  const encoderFor = oncePerKey((subject: string) => buildEncoder(subject));

  async function buildEncoder(subject: string): Promise<(value: unknown) => Buffer> {
    const id = await schemaId(subject);
    const type = await typeOf(id);
    let pool = Buffer.allocUnsafe(POOL_BYTES);
    let at = 0;
    return (value) => {
      for (;;) {
        if (pool.length - at >= HEADER_BYTES) {
          const end = type.encode(value, pool, at + HEADER_BYTES);
          if (end >= 0) {
            pool[at] = MAGIC_BYTE;
            pool.writeInt32BE(id, at + 1);
            const encoded = pool.subarray(at, end);
            at = end;
            return encoded;
          }
          // Not enough room: a fresh pool, at least twice what this value needs.
          pool = Buffer.allocUnsafe(Math.max(POOL_BYTES, 2 * (pool.length - end - at)));
        } else {
          pool = Buffer.allocUnsafe(POOL_BYTES);
        }
        at = 0;
      }
    };
  }

  return {
    async encode(subject, value) {
      // A copy, so a record kept for long does not keep its whole pool alive.
      return Buffer.from((await encoderFor(subject))(value));
    },
    encoderFor,
    async decode<T>(buffer: Buffer) {
      if (buffer.length < HEADER_BYTES || buffer[0] !== MAGIC_BYTE)
        throw new MalformedRecordError('not a Confluent Avro message (no magic byte)');
      const id = buffer.readInt32BE(1);
      const type = known.get(id) ?? (await typeOf(id));
      const { value, offset } = type.decode(buffer, HEADER_BYTES);
      if (offset < 0) throw new MalformedRecordError(`truncated Avro message (schema ${id}, ${buffer.length} bytes)`);
      return value as T;
    },
  };
}
