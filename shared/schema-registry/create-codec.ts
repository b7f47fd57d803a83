import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

/**
 * Avro encoding through a Confluent-compatible registry (Apicurio's ccompat API locally). Messages carry the
 * Confluent wire header (magic byte + schema id), so any Confluent consumer can read our topics.
 */
export interface AvroCodec {
  encode(subject: string, value: unknown): Promise<Buffer>;
  decode<T>(buffer: Buffer): Promise<T>;
}

export function createSchemaRegistry(url: string): SchemaRegistry {
  return new SchemaRegistry({ host: url });
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
  const ids = new Map<string, number>();
  return {
    async encode(subject, value) {
      let id = ids.get(subject);
      if (id === undefined) {
        id = await registry.getLatestSchemaId(subject);
        ids.set(subject, id);
      }
      return registry.encode(id, value);
    },
    async decode<T>(buffer: Buffer) {
      return (await registry.decode(buffer)) as T;
    },
  };
}
