import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import { loadConfig } from './load-config.js';
import { repoRoot } from './repo-root.js';

function confDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'itinera-conf-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), JSON.stringify(content));
  }
  return dir;
}

describe('loadConfig', () => {
  it('When no file and no variable is given, then the defaults are e-mission’s', () => {
    const config = loadConfig({ env: {}, confDir: confDir({}) });
    expect(config.webserver.port).toBe(8080);
    expect(config.webserver.auth).toBe('skip');
    expect(config.log.web).toEqual({ dir: '/var/tmp', maxBytes: 1024 ** 3, maxFiles: 3 });
    expect(config.log.intake).toEqual({ dir: '/var/tmp', maxBytes: 100 * 1024 ** 2, maxFiles: 5 });
    expect(config.kafka.brokers).toEqual(['127.0.0.1:9092']);
  });

  it('When conf/net/api/webserver.conf sets the port, then the file wins over the default', () => {
    const dir = confDir({ 'net/api/webserver.conf': { server: { port: 9999, auth: 'dummy-dev' } } });
    const config = loadConfig({ env: {}, confDir: dir });
    expect(config.webserver.port).toBe(9999);
    expect(config.webserver.auth).toBe('skip');
  });

  it('When an environment variable is set, then it wins over the file', () => {
    const dir = confDir({ 'net/api/webserver.conf': { server: { port: 9999 } } });
    expect(loadConfig({ env: { WEBSERVER_PORT: '8088' }, confDir: dir }).webserver.port).toBe(8088);
  });

  it('When nothing sets aggregate_min_history_days, then aggregates count accounts of 14 days; 0 turns the rule off, a negative number is refused', () => {
    const dir = confDir({});
    expect(loadConfig({ env: {}, confDir: dir }).webserver.aggregateMinHistoryDays).toBe(14);
    const off = { WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '0' };
    expect(loadConfig({ env: off, confDir: dir }).webserver.aggregateMinHistoryDays).toBe(0);
    const negative = { WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '-1' };
    expect(() => loadConfig({ env: negative, confDir: dir })).toThrow(/WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS/);
  });

  it('When nothing names a replication factor, then the keyspace has one replica; conf/ or CASSANDRA_REPLICATION_FACTOR raise it', () => {
    expect(loadConfig({ env: {}, confDir: confDir({}) }).cassandra.replicationFactor).toBe(1);
    const dir = confDir({ 'storage/servers.conf': { cassandra: { replication_factor: 3 } } });
    expect(loadConfig({ env: {}, confDir: dir }).cassandra.replicationFactor).toBe(3);
    expect(loadConfig({ env: { CASSANDRA_REPLICATION_FACTOR: '2' }, confDir: dir }).cassandra.replicationFactor).toBe(
      2,
    );
  });

  it.each([
    [{ CASSANDRA_REPLICATION_FACTOR: '0' }, /CASSANDRA_REPLICATION_FACTOR/],
    [{ WEBSERVER_PORT: 'eighty' }, /WEBSERVER_PORT/],
    [{ WEBSERVER_AUTH: 'oauth' }, /WEBSERVER_AUTH must be one of/],
    [{ CASSANDRA_KEYSPACE: 'drop table' }, /CASSANDRA_KEYSPACE/],
    [{ KAFKA_BROKERS: ' , ' }, /KAFKA_BROKERS/],
  ])('When %o is invalid, then loading fails naming the key', (env, message) => {
    expect(() => loadConfig({ env, confDir: confDir({}) })).toThrow(ConfigError);
    expect(() => loadConfig({ env, confDir: confDir({}) })).toThrow(message);
  });

  it('When a conf file is not JSON, then loading fails naming the file', () => {
    const dir = confDir({});
    mkdirSync(join(dir, 'log'), { recursive: true });
    writeFileSync(join(dir, 'log/webserver.conf'), '{ not json');
    expect(() => loadConfig({ env: {}, confDir: dir })).toThrow(/webserver.conf is not valid JSON/);
  });

  it('When no server asks for credentials, then none are configured and every connection is plain TCP', () => {
    const config = loadConfig({ env: {}, confDir: confDir({}) });
    expect([config.kafka.sasl, config.kafka.tls, config.cassandra.credentials, config.cassandra.tls]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(config.schemaRegistry.credentials).toBeNull();
  });

  it('When servers.conf names credentials and a CA, then each server gets its own, and the environment overrides them', () => {
    const dir = confDir({
      'storage/servers.conf': {
        kafka: {
          sasl: { mechanism: 'SCRAM-SHA-512', username: 'itinera', password: 'from-file' },
          tls: { enabled: true },
        },
        cassandra: { username: 'itinera', password: 'c-pass', tls: { enabled: true, ca_file: 'ca.pem' } },
        schema_registry: { url: 'https://registry.example/', username: 'key', password: 'secret' },
      },
    });
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const env = { KAFKA_SASL_PASSWORD: 'from-env', CASSANDRA_TLS_CA_FILE: join(dir, 'ca.pem') };
    const config = loadConfig({ env, confDir: dir });
    expect(config.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'itinera', password: 'from-env' });
    expect(config.kafka.tls).toEqual({ ca: undefined });
    expect(config.cassandra.credentials).toEqual({ username: 'itinera', password: 'c-pass' });
    expect(config.cassandra.tls?.ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(config.schemaRegistry).toEqual({
      url: 'https://registry.example',
      credentials: { username: 'key', password: 'secret' },
    });
  });

  it.each([
    [{ KAFKA_SASL_USERNAME: 'u' }, 'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD must be set together'],
    [{ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }, 'KAFKA_SASL_MECHANISM must be one of plain'],
    [
      { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_MECHANISM: 'gssapi' },
      'KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512, got gssapi',
    ],
    [{ CASSANDRA_PASSWORD: 'p' }, 'CASSANDRA_USERNAME and CASSANDRA_PASSWORD must be set together'],
    [{ CASSANDRA_TLS: 'yes' }, 'CASSANDRA_TLS must be true or false, got yes'],
    [{ KAFKA_TLS_CA_FILE: '/ca.pem' }, 'KAFKA_TLS_CA_FILE is set but KAFKA_TLS is not true'],
    [{ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: '/nowhere/ca.pem' }, 'KAFKA_TLS_CA_FILE /nowhere/ca.pem cannot be read'],
  ])('When a server secret is half configured (%o), then start-up stops naming it', (env, message) => {
    expect(() => loadConfig({ env, confDir: confDir({}) })).toThrow(ConfigError);
    expect(() => loadConfig({ env, confDir: confDir({}) })).toThrow(message);
  });

  it('When programs have admins in console.conf or the environment, then each program keeps its own list, the environment winning', () => {
    const dir = confDir({
      'net/console.conf': {
        console: { oidc: { program_admin_emails: { 'study-a': ['A@example.org '] }, program_admin_groups: {} } },
      },
    });
    const fromFile = loadConfig({ env: {}, confDir: dir }).console.oidc;
    expect(fromFile.programAdminEmails).toEqual({ 'study-a': ['A@example.org'] });
    expect(fromFile.programAdminGroups).toEqual({});
    const fromEnv = loadConfig({
      env: { CONSOLE_OIDC_PROGRAM_ADMIN_GROUPS: '{"b":["cn=admins,ou=groups"]}' },
      confDir: dir,
    }).console.oidc;
    expect(fromEnv.programAdminGroups).toEqual({ b: ['cn=admins,ou=groups'] });
    expect(loadConfig({ env: {}, confDir: confDir({}) }).console.oidc.programAdminEmails).toEqual({});
  });

  it.each([
    [
      { CONSOLE_OIDC_PROGRAM_ADMIN_EMAILS: 'study-a=a@example.org' },
      /CONSOLE_OIDC_PROGRAM_ADMIN_EMAILS must be a JSON/,
    ],
    [{ CONSOLE_OIDC_PROGRAM_ADMIN_EMAILS: '["a@example.org"]' }, /must map each program to a list/],
    [{ CONSOLE_OIDC_PROGRAM_ADMIN_GROUPS: '{"study_a":["g"]}' }, /"study_a" is not a program name/],
    [{ CONSOLE_OIDC_PROGRAM_ADMIN_GROUPS: '{"study-a":"g"}' }, /study-a must map to a list of strings/],
  ])('When program admins are malformed (%o), then start-up stops naming the key', (env, message) => {
    expect(() => loadConfig({ env, confDir: confDir({}) })).toThrow(message);
  });
});

describe('loadConfig, holding the conf files to the declaration', () => {
  it.each([
    [
      { 'net/api/webserver.conf': { server: { port: 8080, prot: 8081 } } },
      'net/api/webserver.conf: unknown key server.prot',
    ],
    [{ 'net/api/webserver.conf': { port: 8080 } }, 'net/api/webserver.conf: unknown key port'],
    [{ 'log/intake.conf': { level: 'info' } }, 'log/intake.conf: unknown key level'],
    [
      { 'storage/servers.conf': { kafka: { tls: { enabled: true, ca: 'x' } } } },
      'storage/servers.conf: unknown key kafka.tls.ca',
    ],
    [
      { 'net/console.conf': { console: { oidc: { issuers: [] } } } },
      'net/console.conf: unknown key console.oidc.issuers',
    ],
  ])(
    'When a conf file holds a key no one declared (%o), then start-up stops naming the key and the file',
    (files, message) => {
      expect(() => loadConfig({ env: {}, confDir: confDir(files) })).toThrow(ConfigError);
      expect(() => loadConfig({ env: {}, confDir: confDir(files) })).toThrow(message);
    },
  );

  it.each([
    [
      { 'net/api/webserver.conf': { server: { port: '8080' } } },
      'net/api/webserver.conf: server.port must be a port number (0 to 65535), got "8080"',
    ],
    [
      { 'net/api/webserver.conf': { server: 'everything' } },
      'net/api/webserver.conf: server must be an object of keys',
    ],
    [
      { 'storage/servers.conf': { kafka: { tls: { enabled: 'yes' } } } },
      'storage/servers.conf: kafka.tls.enabled must be true or false, got "yes"',
    ],
    [
      { 'storage/servers.conf': { cassandra: { replication_factor: 1.5 } } },
      'storage/servers.conf: cassandra.replication_factor must be a whole number above 0, got 1.5',
    ],
    [
      { 'net/auth/token_list.json': { tokens: 'tok-a' } },
      'net/auth/token_list.json: tokens must be a JSON array of text',
    ],
    [
      { 'net/console.conf': { console: { oidc: { dev_provider: null } } } },
      'net/console.conf: console.oidc.dev_provider must be true or false, got null',
    ],
  ])(
    'When a conf file holds a value of the wrong type (%o), then start-up stops naming the key and the file',
    (files, message) => {
      const dir = confDir(files);
      expect(() => loadConfig({ env: {}, confDir: dir })).toThrow(ConfigError);
      expect(() => loadConfig({ env: {}, confDir: dir })).toThrow(message);
    },
  );

  it('When a wrong file value is overridden by its variable, then start-up still stops: the file is wrong all the same', () => {
    const dir = confDir({ 'net/api/webserver.conf': { server: { port: 'eighty' } } });
    expect(() => loadConfig({ env: { WEBSERVER_PORT: '8080' }, confDir: dir })).toThrow(/server.port must be a port/);
  });

  it('When a secret has the wrong type, then the refusal does not quote it', () => {
    const dir = confDir({ 'storage/servers.conf': { cassandra: { username: 'u', password: 271828 } } });
    expect(() => loadConfig({ env: {}, confDir: dir })).toThrow(/cassandra.password must be text, got \(not shown/);
    expect(() => loadConfig({ env: {}, confDir: dir })).not.toThrow(/271828/);
  });

  it.each([['conf'], ['deploy/kubernetes/conf']])(
    'When the shipped %s folder is read, then every key it holds is declared',
    (dir) => {
      expect(() => loadConfig({ env: {}, confDir: join(repoRoot, dir) })).not.toThrow();
    },
  );
});
