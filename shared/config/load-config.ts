import { join, resolve } from 'node:path';
import { declaredKeys, type ConfigOf } from './config-declaration.js';
import { CONFIG_KEYS } from './config-keys.js';
import { resolveKeys, type Env } from './resolve-keys.js';
import type { INSECURE_SETTINGS } from './servers-keys.js';
import { port } from './value-types.js';
import { ConfigError } from '../errors/index.js';

export { SASL_MECHANISMS, type Credentials, type SaslMechanism, type TlsSettings } from './server-secrets.js';
export { INSECURE_SETTINGS } from './servers-keys.js';

/**
 * What the services are configured with. Each key's file, environment variable, default and meaning are declared in
 * config-keys.ts, and listed in docs/configuration.md.
 */
export type Config = ConfigOf<typeof CONFIG_KEYS>;

/** How the gateway decides who a `user` token belongs to (e-mission's `server.auth`). */
export type AuthMethod = Config['webserver']['auth'];
/** Who may call the aggregate metrics (e-mission's `server.aggregate_call_auth`). */
export type AggregateCallAuth = Config['webserver']['aggregateCallAuth'];
export type InsecureSetting = (typeof INSECURE_SETTINGS)[number];

/** Where `conf/` is, when not in the working directory (a deployment's mounted folder). */
export const CONF_DIR_VARIABLE = 'ITINERA_CONF_DIR';

/** Every environment variable the configuration reads. */
export const ENVIRONMENT_VARIABLES: readonly string[] = [
  CONF_DIR_VARIABLE,
  ...declaredKeys(CONFIG_KEYS).flatMap(({ key }) => key.env ?? []),
];

/**
 * Reads `conf/` (the names e-mission operators know) and lets environment variables override each key.
 * Everything is validated here, once; a bad value stops start-up with a message naming the key.
 */
export function loadConfig(options: { env?: Env; confDir?: string } = {}): Config {
  const env = options.env ?? process.env;
  const confDir = resolve(options.confDir ?? env[CONF_DIR_VARIABLE] ?? join(process.cwd(), 'conf'));
  return deepFreeze(resolveKeys(CONFIG_KEYS, env, confDir) as Config);
}

function deepFreeze<T>(obj: T): T {
  for (const value of Object.values(obj as object)) {
    if (value !== null && typeof value === 'object') deepFreeze(value);
  }
  return Object.freeze(obj);
}

/** Splits `host:port` as used in broker and contact-point lists. */
export function splitHostPort(address: string, defaultPort: number): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  if (at < 0) return { host: address, port: defaultPort };
  const parsed = port.schema.safeParse(Number(address.slice(at + 1)));
  if (!parsed.success) throw new ConfigError(`${address} must end in ${port.expects}`);
  return { host: address.slice(0, at), port: parsed.data };
}
