import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config/index.js';
import { refuseDevelopmentSecrets } from './create-console-auth.js';

const dev = loadConfig().console;
const deployed = {
  ...dev,
  publicUrl: 'https://console.example.org',
  oidc: { ...dev.oidc, issuer: 'https://login.example.org', devProvider: false },
};

describe('refuseDevelopmentSecrets', () => {
  it('lets the development configuration run on this machine', () => {
    expect(() => refuseDevelopmentSecrets(dev)).not.toThrow();
  });

  it('refuses the committed session key, client secret or the development provider anywhere else', () => {
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
