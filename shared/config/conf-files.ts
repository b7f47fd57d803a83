/**
 * The files of `conf/` the services read, in the order docs/configuration.md presents them. The paths are the ones
 * e-mission operators know (`conf/net/api/webserver.conf`, ...), so a deployment's folder carries over.
 */
export const CONF_FILES = {
  'net/api/webserver.conf': 'The phones’ API: the gateway’s address, how it knows who calls, and its limits.',
  'net/auth/token_list.json': 'Tokens accepted when `auth` is `token_list`, besides those issued in the console.',
  'net/auth/secret_list.json': 'Token prefixes accepted when `auth` is `secret` (a study’s shared secret).',
  'log/webserver.conf': 'The gateway’s `webserver.log`, in e-mission’s line format.',
  'log/intake.conf': 'The pipeline’s `intake_<n>.log.gz` (converter) and `intake_<n>-trips.log.gz` (trip builder).',
  'storage/servers.conf': 'Where Kafka, Cassandra and the schema registry are, how to log in to them, and retention.',
  'net/console.conf': 'The operators’ console and its OIDC login.',
} as const;

export type ConfFile = keyof typeof CONF_FILES;
