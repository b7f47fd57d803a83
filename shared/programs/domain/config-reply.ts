import semver from 'semver';
import type { DeploymentConfig } from './deployment-config.js';

/** What the phone says about itself in a put (both are absent from iOS's silent-push syncs). */
export interface PhoneVersions {
  deploymentConfigVersion?: unknown;
  appVersion?: unknown;
}

/** A version string as semver reads it ("2.1" is "2.1.0"); undefined when it is no version. */
function asVersion(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return semver.valid(semver.coerce(value)) ?? undefined;
}

/**
 * e-mission's `is_phone_config_outdated`: the phone holds an older version of the program's configuration than the
 * server, and its app is recent enough to read the new one (`app_version` not below `min_app_version`, 0.0.0 when
 * unset). A phone that sent no configuration version (or 0) counts as up to date, and so does one whose app version is no
 * version at all: a reply it may not read is worse than none.
 */
export function isPhoneConfigOutdated(config: DeploymentConfig, phone: PhoneVersions): boolean {
  const held = phone.deploymentConfigVersion;
  // As e-mission reads them: a version 0 is no version (up to date), an empty app version is none (not checked).
  if (typeof held !== 'number' || !Number.isFinite(held) || held === 0 || held >= config.version) return false;
  if (phone.appVersion === undefined || phone.appVersion === null || phone.appVersion === '') return true;
  const app = asVersion(phone.appVersion);
  if (app === undefined) return false;
  return semver.gte(app, asVersion(config.min_app_version ?? '0.0.0') ?? '0.0.0');
}

/**
 * The body of a put's answer: `{deployment_config}` when the phone's copy is outdated, else an empty object (never
 * null nor a list: Android's sync fails on those).
 */
export function putReply(config: DeploymentConfig | undefined, phone: PhoneVersions): Record<string, unknown> {
  return config && isPhoneConfigOutdated(config, phone) ? { deployment_config: config } : {};
}
