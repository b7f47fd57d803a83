import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredKeys, isComputed, type ConfKey } from './config-declaration.js';
import { CONFIG_KEYS } from './config-keys.js';
import { ENVIRONMENT_VARIABLES, loadConfig } from './load-config.js';
import { programLists } from './program-lists.js';
import * as types from './value-types.js';

const keys = declaredKeys(CONFIG_KEYS);
const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'itinera-keys-'));

/** Two texts each type reads as two different valid values. */
const SAMPLES = new Map<unknown, readonly [string, string]>([
  [types.text, ['x', 'y']],
  [types.nonEmptyText, ['x', 'y']],
  [types.trimmedText, ['x', 'y']],
  [types.url, ['http://a.example', 'https://b.example']],
  [types.port, ['1234', '4321']],
  [types.positiveNumber, ['7', '9.5']],
  [types.positiveInteger, ['7', '9']],
  [types.nonNegativeNumber, ['0', '9']],
  [types.boolean, ['true', 'false']],
  [types.addressList, ['a:1', 'b:2,c:3']],
  [types.optionalList, ['a', 'b,c']],
  [types.stringArray, ['["a"]', '["b","c"]']],
  [types.cqlName, ['ks_a', 'ks_b']],
  [programLists, ['{"a":["x"]}', '{"b":["y"]}']],
]);

const caFiles = ['a', 'b'].map((name) => {
  const path = join(scratch, `${name}.pem`);
  writeFileSync(path, `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`);
  return path;
});

function samples(key: ConfKey<unknown>): readonly [string, string] {
  if (key.path.endsWith('.ca_file')) return [caFiles[0]!, caFiles[1]!];
  const [a, b] = key.type.choices ?? [];
  if (a !== undefined && b !== undefined) return [a, b];
  const found = SAMPLES.get(key.type);
  if (found === undefined) throw new Error(`no samples for the type of ${key.path}: add it to SAMPLES`);
  return found;
}

/** Every server login and TLS on, so that one key of a group changes something when set alone. */
const BASELINE = {
  KAFKA_SASL_MECHANISM: 'plain',
  KAFKA_SASL_USERNAME: 'u',
  KAFKA_SASL_PASSWORD: 'p',
  KAFKA_TLS: 'true',
  CASSANDRA_USERNAME: 'u',
  CASSANDRA_PASSWORD: 'p',
  CASSANDRA_TLS: 'true',
  SCHEMA_REGISTRY_USERNAME: 'u',
  SCHEMA_REGISTRY_PASSWORD: 'p',
};

/** A conf folder whose only key is `key`, set to the JSON value `text` stands for. */
function confWith(key: ConfKey<unknown>, text: string): string {
  const dir = mkdtempSync(join(scratch, 'conf-'));
  const parts = key.path.split('.');
  // Keys without a variable have no text form: their samples are JSON.
  const value = key.env === undefined ? JSON.parse(text) : key.type.fromText(text);
  const json = parts.reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
  mkdirSync(dirname(join(dir, key.file)), { recursive: true });
  writeFileSync(join(dir, key.file), JSON.stringify(json));
  return dir;
}

const emptyConf = mkdtempSync(join(scratch, 'empty-'));
const load = (env: Record<string, string>, confDir = emptyConf) => loadConfig({ env, confDir });
const at = (config: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown> | null)?.[part], config);

describe('the declaration of every configuration key', () => {
  it('When keys are declared, then each environment variable belongs to one key and follows its file’s naming rule', () => {
    const names = keys.flatMap(({ key }) => key.env ?? []);
    expect(new Set(names).size).toBe(names.length);
    expect([...ENVIRONMENT_VARIABLES].sort()).toEqual([...names, 'ITINERA_CONF_DIR'].sort());
    for (const { key } of keys) {
      // e-mission operators guess a variable from the key: WEBSERVER_<key>, CONSOLE_<key> (oidc ones too).
      if (key.file === 'net/api/webserver.conf')
        expect(key.env).toBe(`WEBSERVER_${key.path.replace(/^server\./, '').toUpperCase()}`);
      if (key.file === 'net/console.conf')
        expect(key.env).toBe(
          `CONSOLE_${key.path
            .replace(/^console\./, '')
            .replace('.', '_')
            .toUpperCase()}`,
        );
    }
  });

  it.each(keys.filter(({ key }) => key.default !== undefined && !isComputed(key.default)))(
    'When $configPath is not set, then its default is a value its own type accepts',
    ({ key }) => {
      expect(key.type.schema.parse(key.default)).toEqual(key.default);
    },
  );

  it('When nothing sets a key, then the configuration holds its declared default, so no other default exists', () => {
    const config = load({});
    for (const { configPath, key } of keys) {
      const section = at(config, configPath.split('.').slice(0, -1).join('.'));
      // A group's keys (credentials, TLS) become one value: none of them is set, so there is none.
      if (section === null) continue;
      const expected = isComputed(key.default)
        ? key.default.computed(section as Record<string, unknown>)
        : typeof key.default === 'number'
          ? key.default * key.scale
          : key.default;
      expect(at(config, configPath), configPath).toEqual(expected);
    }
    expect([config.kafka.sasl, config.kafka.tls, config.cassandra.credentials, config.cassandra.tls]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    const sources = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    for (const file of sources) expect(readFileSync(join(here, file), 'utf8'), file).not.toMatch(/@defaultValue/);
  });

  it.each(keys.filter(({ key }) => key.env !== undefined))(
    'When $key.env is set, then it is honoured, and wins over $key.path in its file',
    ({ key }) => {
      const [a, b] = samples(key);
      const name = key.env!;
      const { [name]: _, ...others } = BASELINE as Record<string, string>;
      const fromFile = load(others, confWith(key, a));
      const fromEnv = load({ ...others, [name]: b });
      expect(fromEnv).not.toEqual(fromFile);
      expect(load({ ...others, [name]: b }, confWith(key, a))).toEqual(fromEnv);
      expect(load({ ...others, [name]: a })).toEqual(fromFile);
    },
  );

  it.each(keys.filter(({ key }) => key.env === undefined))(
    'When $key.path is set in conf/$key.file, then it is honoured',
    ({ key }) => {
      const [a, b] = samples(key);
      expect(load({}, confWith(key, a))).not.toEqual(load({}, confWith(key, b)));
    },
  );
});
