import { describe, expect, it } from 'vitest';
import { isPhoneConfigOutdated, putReply } from './config-reply.js';
import type { DeploymentConfig } from './deployment-config.js';

const config: DeploymentConfig = { version: 5, min_app_version: '1.9.0', url_abbreviation: 'ebike' };

describe("a put's answer", () => {
  it('When the phone holds an older version and its app is recent enough, then it is outdated', () => {
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 4, appVersion: '2.1.3' })).toBe(true);
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 4, appVersion: '1.9.0' })).toBe(true);
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 4 })).toBe(true);
    // An empty app version is none, as e-mission reads it.
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 4, appVersion: '' })).toBe(true);
  });

  it('When the phone holds the same or a newer version, or sent none (or 0), then it is up to date', () => {
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 5, appVersion: '2.1.3' })).toBe(false);
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 6, appVersion: '2.1.3' })).toBe(false);
    expect(isPhoneConfigOutdated(config, { appVersion: '2.1.3' })).toBe(false);
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 0, appVersion: '2.1.3' })).toBe(false);
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: '4', appVersion: '2.1.3' })).toBe(false);
  });

  it('When the app is older than min_app_version, or its version is unreadable, then no configuration is sent', () => {
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 4, appVersion: '1.8.9' })).toBe(false);
    expect(isPhoneConfigOutdated(config, { deploymentConfigVersion: 4, appVersion: 'beta' })).toBe(false);
  });

  it('When versions are compared, then they are compared as versions, not as text', () => {
    const strict = { ...config, min_app_version: '1.10.0' };
    expect(isPhoneConfigOutdated(strict, { deploymentConfigVersion: 1, appVersion: '1.9.0' })).toBe(false);
    expect(isPhoneConfigOutdated(strict, { deploymentConfigVersion: 1, appVersion: '1.10.0' })).toBe(true);
  });

  it('When a program sets no min_app_version, then any app version gets the configuration', () => {
    expect(isPhoneConfigOutdated({ version: 2 }, { deploymentConfigVersion: 1, appVersion: '0.1.0' })).toBe(true);
  });

  it('When outdated, then the answer holds the whole configuration; otherwise it is an empty object', () => {
    expect(putReply(config, { deploymentConfigVersion: 1 })).toEqual({ deployment_config: config });
    expect(putReply(config, { deploymentConfigVersion: 5 })).toEqual({});
    expect(putReply(undefined, { deploymentConfigVersion: 1 })).toEqual({});
  });
});
