import { describe, expect, it } from 'vitest';
import { exposures, isLoopbackHost, refuseExposure } from './exposure.js';
import { loadConfig } from './load-config.js';

/** The shipped configuration with environment overrides, as a service would load it. */
const configWith = (env: Record<string, string> = {}) => loadConfig({ env: { ...env } });
const settingsOf = (env: Record<string, string>, component: 'gateway' | 'console' | 'worker' = 'gateway') =>
  exposures(configWith(env), component).map((e) => e.setting);

describe('isLoopbackHost', () => {
  it('knows loopback from the wildcard and other addresses', () => {
    for (const host of ['localhost', '127.0.0.1', '127.3.2.1', '::1', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'kafka', '128.0.0.1', '127.0.0.1.example.org'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('exposures', () => {
  it('finds nothing in the shipped configuration: everything listens on and talks to this machine', () => {
    for (const component of ['gateway', 'console', 'worker'] as const)
      expect(exposures(configWith(), component), component).toEqual([]);
  });

  it('finds phone auth skip once the gateway listens beyond loopback, and no longer with a real auth mode', () => {
    expect(settingsOf({ WEBSERVER_HOST: '0.0.0.0' })).toEqual(['skip-auth']);
    expect(settingsOf({ WEBSERVER_HOST: '::' })).toEqual(['skip-auth']);
    expect(settingsOf({ WEBSERVER_HOST: '0.0.0.0', WEBSERVER_AUTH: 'token_list' })).toEqual([]);
    // Only the gateway serves phones.
    expect(settingsOf({ WEBSERVER_HOST: '0.0.0.0' }, 'worker')).toEqual([]);
  });

  it('finds the built-in Cassandra superuser and a broker without credentials once they are on another machine', () => {
    expect(settingsOf({ CASSANDRA_CONTACT_POINTS: 'db1:9042,127.0.0.1:9042' }, 'worker')).toEqual([
      'cassandra-default-login',
    ]);
    expect(
      settingsOf({ CASSANDRA_CONTACT_POINTS: 'db1:9042', CASSANDRA_USERNAME: 'itinera', CASSANDRA_PASSWORD: 's3cret' }),
    ).toEqual([]);
    expect(settingsOf({ KAFKA_BROKERS: 'kafka-1:9092' }, 'console')).toEqual(['kafka-plaintext']);
    expect(
      settingsOf({
        KAFKA_BROKERS: 'kafka-1:9092',
        KAFKA_SASL_USERNAME: 'itinera',
        KAFKA_SASL_PASSWORD: 's3cret',
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
      }),
    ).toEqual([]);
  });
});

describe('refuseExposure', () => {
  const exposed = { WEBSERVER_HOST: '0.0.0.0', KAFKA_BROKERS: 'kafka-1:9092' };

  it('refuses to start on every setting not allowed by name, saying how to allow it', () => {
    const warnings: string[] = [];
    expect(() => refuseExposure(configWith(exposed), 'gateway', (l) => warnings.push(l))).toThrow(
      /2 development setting.*\n.*skip.*ITINERA_ALLOW_INSECURE=skip-auth\)\n.*ITINERA_ALLOW_INSECURE=kafka-plaintext\)$/,
    );
    expect(() =>
      refuseExposure(configWith({ ...exposed, ITINERA_ALLOW_INSECURE: 'kafka-plaintext' }), 'gateway', () => undefined),
    ).toThrow(/skip-auth/);
    expect(warnings).toEqual([]);
  });

  it('starts when each is allowed, and says so at every start', () => {
    const warnings: string[] = [];
    const config = configWith({ ...exposed, ITINERA_ALLOW_INSECURE: 'skip-auth, kafka-plaintext' });
    expect(() => refuseExposure(config, 'gateway', (l) => warnings.push(l))).not.toThrow();
    expect(warnings).toHaveLength(2);
    expect(warnings.every((w) => w.startsWith('INSECURE'))).toBe(true);
  });

  it('takes only the named settings', () => {
    expect(() => configWith({ ITINERA_ALLOW_INSECURE: 'everything' })).toThrow(/ITINERA_ALLOW_INSECURE must be one of/);
  });
});
