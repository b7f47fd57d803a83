/**
 * How the services log in to Kafka, Cassandra and the schema registry: keys that only work together, checked
 * together so that a half-configured secret stops start-up instead of failing every connection later.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors/index.js';
import { group, type ConfKey } from './config-declaration.js';

/** A user name and password a server asks for. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** The SASL mechanisms kafkajs speaks that managed Kafka services use (Confluent Cloud: plain; MSK, Strimzi: scram). */
export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/**
 * TLS to a server. `ca` is the PEM of the authority that signed the server's certificate, read from `ca_file` when
 * the server's certificate is not signed by one Node.js already trusts (a cluster's own CA, as Strimzi and K8ssandra
 * make); the server's certificate is always verified.
 */
export interface TlsSettings {
  readonly ca: string | undefined;
}

/** Both keys as an operator may have set them: the variables and the file's keys. */
const both = (a: ConfKey<unknown>, b: ConfKey<unknown>) => `(or ${a.path} and ${b.path} in conf/${a.file})`;

function credentialsOf(
  { username, password }: { username: string; password: string },
  keys: { username: ConfKey<string>; password: ConfKey<string> },
): Credentials | null {
  if (username === '' && password === '') return null;
  if (username === '' || password === '')
    throw new ConfigError(
      `${keys.username.env} and ${keys.password.env} must be set together ${both(keys.username, keys.password)}`,
    );
  return { username, password };
}

/** A user name and password, both or neither; `null` when the server asks for none. */
export const credentials = (username: ConfKey<string>, password: ConfKey<string>) =>
  group({ username, password }, credentialsOf);

/** SASL to the brokers: credentials and the mechanism that carries them, which has no safe default. */
export const sasl = (
  mechanism: ConfKey<SaslMechanism | undefined>,
  username: ConfKey<string>,
  password: ConfKey<string>,
) =>
  group({ mechanism, username, password }, (values, keys): (Credentials & { mechanism: SaslMechanism }) | null => {
    const creds = credentialsOf(values, keys);
    if (creds === null) return null;
    if (values.mechanism === undefined)
      throw new ConfigError(
        `${keys.mechanism.env} must be one of ${SASL_MECHANISMS.join(', ')} when ${keys.username.env} is set ` +
          `(or ${keys.mechanism.path} in conf/${keys.mechanism.file})`,
      );
    return { ...creds, mechanism: values.mechanism };
  });

/** TLS to a server, off unless switched on; a CA file alone is refused, since it would silently not be used. */
export const tls = (enabled: ConfKey<boolean>, caFile: ConfKey<string>) =>
  group({ enabled, caFile }, (values, keys): TlsSettings | null => {
    if (!values.enabled) {
      if (values.caFile !== '')
        throw new ConfigError(
          `${keys.caFile.env} is set but ${keys.enabled.env} is not true ${both(keys.caFile, keys.enabled)}`,
        );
      return null;
    }
    if (values.caFile === '') return { ca: undefined };
    try {
      return { ca: readFileSync(values.caFile, 'utf8') };
    } catch (cause) {
      throw new ConfigError(`${keys.caFile.env} ${values.caFile} cannot be read`, { cause });
    }
  });
