import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import { loadConfig } from './load-config.js';

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
});
