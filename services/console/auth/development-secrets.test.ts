import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config/index.js';
import { refuseDevelopmentSecrets } from './create-console-auth.js';

const dev = loadConfig().console;
const deployed = {
  ...dev,
  host: '0.0.0.0',
  sessionKeys: ['itinera-development-only-session-key'],
  publicUrl: 'https://console.example.org',
  oidc: { ...dev.oidc, issuer: 'https://login.example.org', devProvider: false },
};

describe('refuseDevelopmentSecrets', () => {
  it('lets the development configuration run on this machine', () => {
    expect(() => refuseDevelopmentSecrets(dev)).not.toThrow();
  });

  it('refuses them when the console listens beyond loopback, whatever URLs it advertises', () => {
    const listening = (host: string) => ({ ...dev, host });
    expect(() => refuseDevelopmentSecrets(listening('0.0.0.0'))).toThrow(/client_secret/);
    expect(() => refuseDevelopmentSecrets(listening('::'))).toThrow(/client_secret/);
    expect(() => refuseDevelopmentSecrets(listening('192.168.1.20'))).toThrow(/client_secret/);
    expect(() => refuseDevelopmentSecrets(listening('127.0.0.2'))).not.toThrow();
    expect(() => refuseDevelopmentSecrets(listening('localhost'))).not.toThrow();
  });

  it('ships no session key: the development configuration signs with a key made at start', () => {
    expect(dev.sessionKeys).toEqual([]);
  });

  it('refuses the development session key, client secret or the development provider anywhere else', () => {
    expect(() => refuseDevelopmentSecrets(deployed)).toThrow(/session_keys/);
    const keyed = { ...deployed, sessionKeys: ['a-long-random-secret'] };
    expect(() => refuseDevelopmentSecrets(keyed)).toThrow(/client_secret/);
    const secret = { ...keyed, oidc: { ...keyed.oidc, clientSecret: 'from-the-provider' } };
    expect(() => refuseDevelopmentSecrets(secret)).not.toThrow();
    expect(() => refuseDevelopmentSecrets({ ...secret, oidc: { ...secret.oidc, devProvider: true } })).toThrow(
      /dev_provider/,
    );
  });
});
