import { describe, expect, it } from 'vitest';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import { createAvroCodec } from './create-codec.js';

const schema = avro.Type.forSchema({
  type: 'record',
  name: 'Entry',
  fields: [
    { name: 'key', type: 'string' },
    { name: 'data_json', type: 'string' },
  ],
});

/**
 * The registry's HTTP side stubbed to one schema: this proves the codec's own framing and pooling. The codec
 * against the real registry is exercised by every integration test.
 */
function registryWithOneSchema() {
  const calls = { latest: 0, schema: 0 };
  const registry = {
    getLatestSchemaId: async () => {
      calls.latest += 1;
      return 7;
    },
    getSchema: async () => {
      calls.schema += 1;
      return schema;
    },
  } as unknown as SchemaRegistry;
  return { registry, calls };
}

describe('the Avro codec', () => {
  it('When thousands of values are encoded at once on a cold codec, then the registry is asked once, and every value decodes back', async () => {
    const { registry, calls } = registryWithOneSchema();
    const codec = createAvroCodec(registry);
    const values = Array.from({ length: 3000 }, (_, i) => ({ key: `k${i}`, data_json: 'x'.repeat(i % 700) }));
    const encoded = await Promise.all(values.map((v) => codec.encode('s', v)));
    const encodeMany = await codec.encoderFor('s');
    const pooled = values.map((v) => encodeMany(v));
    expect(calls).toEqual({ latest: 1, schema: 1 });
    for (const [i, buffer] of [...encoded, ...pooled].entries()) {
      expect(buffer[0]).toBe(0);
      expect(buffer.readInt32BE(1)).toBe(7);
      expect({ ...(await codec.decode<object>(buffer)) }).toEqual(values[i % values.length]);
    }
  });

  it('When a value is larger than the pool, then it still comes out whole', async () => {
    const codec = createAvroCodec(registryWithOneSchema().registry);
    const encode = await codec.encoderFor('s');
    const small = encode({ key: 'a', data_json: 'b' });
    const big = { key: 'big', data_json: 'y'.repeat(3 * 1024 * 1024) };
    expect({ ...(await codec.decode<object>(encode(big))) }).toEqual(big);
    expect({ ...(await codec.decode<object>(small)) }).toEqual({ key: 'a', data_json: 'b' });
  });

  it('When a message is not Avro or is cut short, then decoding says so', async () => {
    const codec = createAvroCodec(registryWithOneSchema().registry);
    await expect(codec.decode(Buffer.from('{"json": true}'))).rejects.toThrow(/magic byte/);
    const whole = (await codec.encoderFor('s'))({ key: 'abc', data_json: 'def' });
    await expect(codec.decode(whole.subarray(0, whole.length - 2))).rejects.toThrow(/truncated/);
  });
});
