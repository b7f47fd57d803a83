import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors/index.js';
import type { LogFiles } from '../logger/index.js';
import { asProgramLists, type ProgramLists } from './program-lists.js';

/** How the gateway decides who a `user` token belongs to (e-mission's `server.auth`). */
export type AuthMethod = 'skip' | 'token_list' | 'secret';
/** Who may call the aggregate metrics (e-mission's `server.aggregate_call_auth`). */
export type AggregateCallAuth = 'no_auth' | 'user_only' | 'never';

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

/**
 * Development settings an operator may keep off loopback on purpose, each named (`ITINERA_ALLOW_INSECURE`): see
 * exposure.ts.
 */
export const INSECURE_SETTINGS = ['skip-auth', 'cassandra-default-login', 'kafka-plaintext'] as const;
export type InsecureSetting = (typeof INSECURE_SETTINGS)[number];

export interface Config {
  readonly webserver: {
    /**
     * Interface the gateway listens on. @defaultValue `127.0.0.1`: the shipped auth mode (`skip`) takes tokens as
     * e-mails, so the development server stays on this machine (emulators reach it). e-mission listens on 0.0.0.0;
     * here a non-loopback host needs a real auth mode or `ITINERA_ALLOW_INSECURE=skip-auth` (exposure.ts).
     */
    readonly host: string;
    /** @defaultValue 8080, where the e-mission app looks for a development server. */
    readonly port: number;
    /** Socket idle timeout, in seconds. @defaultValue 3600 */
    readonly timeoutSeconds: number;
    /** `skip` is the spec's "dummy-dev" mode: the token is the user name. @defaultValue `skip` */
    readonly auth: AuthMethod;
    readonly aggregateCallAuth: AggregateCallAuth;
    /**
     * k of the aggregate metrics: a value computed from fewer distinct users is withheld, so a "public" aggregate
     * never tells one person's travel. @defaultValue 5
     */
    readonly aggregateMinUsers: number;
    /**
     * Days an account must have existed (by the server's clock) before a trip of its counts in an aggregate, so
     * that accounts made for the purpose cannot difference one participant out of a bin (gateway
     * domain/metrics-history.ts). 0 turns the rule off; it never applies where `aggregateMinUsers` is 1.
     * @defaultValue 14
     */
    readonly aggregateMinHistoryDays: number;
    /** Section rows one metrics scan (a user's, or the aggregate) may read; beyond, the call is a 400. @defaultValue 500 000 */
    readonly metricsMaxSections: number;
    /**
     * Most entries one `find_entries` answers (e-mission: 250,000). An answer that would hold more is a 400 naming
     * this limit; `max_entries` with `first` or `last` reads only what it keeps. @defaultValue 100 000
     */
    readonly findEntriesMax: number;
    /**
     * Most bytes of entries one `find_entries` answers (`find_entries_max_mb`): an entry can be 1.5 MiB, so the count
     * alone would allow gigabytes. Reading stops there, with a 400 naming the limit. @defaultValue 64 MiB
     */
    readonly findEntriesMaxBytes: number;
    /** Largest accepted request body, in bytes. A 10,000-entry put is about 6 MB. @defaultValue 64 MiB */
    readonly bodyLimitBytes: number;
    /**
     * Puts parsed and published at once; later ones wait in arrival order holding only their bytes. Many small puts
     * run side by side while Kafka acknowledges them; the one JavaScript thread is the limit beyond that.
     * @defaultValue 16
     */
    readonly maxConcurrentPuts: number;
    /**
     * Body bytes of the puts parsed and published at once (a put is always admitted when none runs, so one larger
     * put runs alone). A put being published takes about twice its body in heap besides the body itself, so this
     * bounds the gateway's memory under big puts; four 10,000-entry puts at once already keep Kafka busy.
     * @defaultValue 32 MiB
     */
    readonly putActiveBytes: number;
    /** Largest body of every call but the puts, in bytes: they carry a token and a query. @defaultValue 1 MiB */
    readonly otherBodyLimitBytes: number;
    /**
     * Body bytes the gateway holds at once across all requests (being read, waiting for a put slot, or being
     * processed). Beyond it a request is answered 503 with Retry-After before its body is read. @defaultValue 256 MiB
     */
    readonly bodyBudgetBytes: number;
    /** Bytes of puts waiting for a processing slot; beyond it a put is answered 503. @defaultValue 128 MiB */
    readonly putQueueBytes: number;
    /**
     * A body that sends nothing for this long is cut off (408), and so is one that, after this long, has averaged
     * less than `bodyMinBytesPerSecond`: a client trickling bytes cannot hold a socket and its budget for ever.
     * @defaultValue 60 000 ms
     */
    readonly bodyIdleTimeoutMs: number;
    /** Slowest average upload accepted once `bodyIdleTimeoutMs` has passed (a slow 2G link does 2 KB/s). @defaultValue 512 */
    readonly bodyMinBytesPerSecond: number;
    /** Token to user lookups remembered (LRU). @defaultValue 100 000 */
    readonly userCacheEntries: number;
    /**
     * How long a cached token is trusted before it is read again: the longest another gateway keeps serving an
     * account deleted elsewhere. @defaultValue 60 s
     */
    readonly userCacheTtlMs: number;
    /**
     * How long an export may go without the client reading a byte before its connection is closed and its slot
     * freed (a client that stops reading would hold the slot and its Cassandra reads for ever). @defaultValue 60 s
     */
    readonly exportIdleTimeoutMs: number;
    /** Longest a program's saved configuration takes to reach this gateway (and the phones' put replies). @defaultValue 5 s */
    readonly programRefreshMs: number;
    /** Token prefixes accepted in `secret` mode (`conf/net/auth/secret_list.json`). */
    readonly secretPrefixes: readonly string[];
    /** Tokens accepted in `token_list` mode (`conf/net/auth/token_list.json`). */
    readonly tokenList: readonly string[];
  };
  readonly log: {
    readonly level: string;
    /**
     * `webserver.log` (`conf/log/webserver.conf`: `dir`, `max_size_mb`, `max_files`; `ITINERA_LOG_DIR`,
     * `ITINERA_LOG_MAX_MB`, `ITINERA_LOG_MAX_FILES`). The directory `-` means standard output.
     * @defaultValue `/var/tmp`, rotated at 1024 MB, 3 files
     */
    readonly web: LogFiles;
    /**
     * The pipeline's `intake_*.log.gz` (`conf/log/intake.conf`; `ITINERA_INTAKE_LOG_DIR`, `ITINERA_INTAKE_LOG_MAX_MB`,
     * `ITINERA_INTAKE_LOG_MAX_FILES`). @defaultValue `/var/tmp`, rotated at 100 MB compressed, 5 files per worker
     */
    readonly intake: LogFiles;
  };
  readonly kafka: {
    readonly brokers: readonly string[];
    /** Prefix of every topic and consumer group name; tests use a unique one each. @defaultValue `itinera.` */
    readonly topicPrefix: string;
    /** Partitions of the per-user topics. See deploy/provision/topics.ts for why 16. */
    readonly partitions: number;
    /**
     * Milliseconds a put waits for Kafka's acknowledgement before answering 503. Long, because a burst of big
     * puts queues behind one producer and the phones wait minutes (iOS: 500 s); a dead broker fails much sooner,
     * when kafkajs gives up connecting. @defaultValue 60000
     */
    readonly ackTimeoutMs: number;
    /**
     * SASL, when the brokers require it (`kafka.sasl` {mechanism, username, password}; `KAFKA_SASL_MECHANISM`,
     * `KAFKA_SASL_USERNAME`, `KAFKA_SASL_PASSWORD`). @defaultValue none
     */
    readonly sasl: (Credentials & { readonly mechanism: SaslMechanism }) | null;
    /** TLS to the brokers (`kafka.tls` {enabled, ca_file}; `KAFKA_TLS=true`, `KAFKA_TLS_CA_FILE`). @defaultValue off */
    readonly tls: TlsSettings | null;
  };
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
    /**
     * Replicas of each row in the local datacenter, used when provisioning creates the keyspace: 1 (the single local
     * node) keeps `SimpleStrategy` RF 1; more (the three-node cluster, production) is `NetworkTopologyStrategy` with
     * this many replicas in `localDataCenter`, so the LOCAL_QUORUM every query uses survives one node down.
     * @defaultValue 1
     */
    readonly replicationFactor: number;
    /**
     * For a cluster with `PasswordAuthenticator` (K8ssandra's default, Astra): `cassandra.username`, `.password`;
     * `CASSANDRA_USERNAME`, `CASSANDRA_PASSWORD`. @defaultValue none
     */
    readonly credentials: Credentials | null;
    /** TLS to the nodes (`cassandra.tls` {enabled, ca_file}; `CASSANDRA_TLS=true`, `CASSANDRA_TLS_CA_FILE`). @defaultValue off */
    readonly tls: TlsSettings | null;
  };
  /** How long data is kept (`retention` in conf/storage/servers.conf); see the README's "Your data". */
  readonly retention: {
    /**
     * Days the raw topics (usercache, timeseries) keep records: how far `reset-pipeline -a` can rewind, and, plus
     * one day (segments roll daily), the longest a deleted account's entries remain in Kafka. @defaultValue 30
     */
    readonly rawTopicDays: number;
    /** Days the error-timeseries topic keeps dead letters (they are also in the error table). @defaultValue 56 */
    readonly deadLetterTopicDays: number;
    /** Days raw location entries stay in the timeseries; 0 keeps them for ever. `itinera retention` applies it. */
    readonly rawLocationDays: number;
  };
  readonly schemaRegistry: {
    /** Base URL of the Confluent-compatible API (Apicurio: `/apis/ccompat/v7`); `https://` for TLS. */
    readonly url: string;
    /**
     * HTTP basic authentication (Confluent Cloud's API key and secret): `schema_registry.username`, `.password`;
     * `SCHEMA_REGISTRY_USERNAME`, `SCHEMA_REGISTRY_PASSWORD`. @defaultValue none
     */
    readonly credentials: Credentials | null;
  };
  readonly security: {
    /**
     * Development settings allowed although a network reaches them (`ITINERA_ALLOW_INSECURE`, comma-separated, or
     * `security.allow_insecure` in conf/storage/servers.conf); each is logged at every start. @defaultValue none
     */
    readonly allowInsecure: readonly InsecureSetting[];
  };
  /** The operators' console (`conf/net/console.conf`, environment `CONSOLE_<KEY>`); see the README's "Console". */
  readonly console: {
    /** @defaultValue `127.0.0.1`: the console is for operators, not for the phones' network. */
    readonly host: string;
    /** @defaultValue 8090 */
    readonly port: number;
    /** The URL operators' browsers use (the OIDC redirect is `<publicUrl>/admin/callback`). */
    readonly publicUrl: string;
    /**
     * Keys signing the session cookie, newest first (rotate by prepending). None configured: the console makes a
     * random one at start, so sessions end when it restarts. @defaultValue none
     */
    readonly sessionKeys: readonly string[];
    /** Leaflet tile URL template for the day map; empty: no base map (offline). */
    readonly tileUrl: string;
    /** Seconds between refreshes of the in-memory participant index. @defaultValue 30 */
    readonly participantsRefreshSeconds: number;
    /** A consumer group with lag and no commit for this long is shown as stalled. @defaultValue 5 */
    readonly stalledMinutes: number;
    /** A user whose trip builder resume point is this far behind their last push is listed. @defaultValue 6 */
    readonly behindHours: number;
    readonly oidc: {
      readonly issuer: string;
      readonly clientId: string;
      readonly clientSecret: string;
      /**
       * Start the project's local OIDC provider (development and tests only) on the issuer's port. Off unless
       * conf/net/console.conf says so (the development file does); refused unless issuer and console are loopback.
       */
      readonly devProvider: boolean;
      /** E-mails count for a role only if verified (`required`), or also if the provider never says (`when_sent`). */
      readonly emailVerified: 'required' | 'when_sent';
      /** E-mails allowed in read-only; `*` allows every e-mail the provider vouches for. */
      readonly readerEmails: readonly string[];
      readonly operatorEmails: readonly string[];
      /** ID-token claim holding the user's groups (Keycloak, Entra ID, Okta: `groups`). */
      readonly groupClaim: string;
      readonly readerGroups: readonly string[];
      readonly operatorGroups: readonly string[];
      /**
       * Programs' admins by verified e-mail, program → e-mails (`oidc.program_admin_emails`; in the environment, the
       * same as a JSON object). A program's admin sees and acts on that program's participants, tokens and
       * configuration only, even when the reader lists would let them read everything. @defaultValue none
       */
      readonly programAdminEmails: ProgramLists;
      /** Programs' admins by group (in `group_claim`), program → groups. @defaultValue none */
      readonly programAdminGroups: ProgramLists;
    };
  };
}

type Env = Readonly<Record<string, string | undefined>>;

function readJson(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (cause) {
    throw new ConfigError(`${path} is not valid JSON`, { cause });
  }
}

function section(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = obj[key];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function pick(envName: string, env: Env, fileValue: unknown, fallback: unknown): unknown {
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return fileValue ?? fallback;
}

function asString(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${name} must be a non-empty string`);
  return value.trim();
}

function asPort(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${name} must be a port number, got ${String(value)}`);
  return n;
}

/** A log's directory and rotation from its conf file, each overridden by `<prefix>_DIR`, `_MAX_MB`, `_MAX_FILES`. */
function logFiles(prefix: string, env: Env, conf: Record<string, unknown>, maxMb: number, maxFiles: number): LogFiles {
  const key = (suffix: string, confKey: string, fallback: unknown): [string, unknown] => [
    `${prefix}_${suffix}`,
    pick(`${prefix}_${suffix}`, env, conf[confKey], fallback),
  ];
  return {
    dir: asString(...key('DIR', 'dir', '/var/tmp')),
    maxBytes: asPositive(...key('MAX_MB', 'max_size_mb', maxMb)) * 1024 * 1024,
    maxFiles: asPositiveInteger(...key('MAX_FILES', 'max_files', maxFiles)),
  };
}

function asPositive(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got ${String(value)}`);
  return n;
}

function asNonNegative(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be a number of at least 0`);
  return n;
}

function asPositiveInteger(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new ConfigError(`${name} must be a positive integer, got ${String(value)}`);
  return n;
}

function asList(name: string, value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(String) : asString(name, value).split(',');
  const list = items.map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) throw new ConfigError(`${name} must list at least one address`);
  return list;
}

function asOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  const s = asString(name, value);
  // "dummy-dev" is what the spec and the phone's onboarding call the development mode.
  const normalised = s === 'dummy-dev' ? 'skip' : s;
  if (!(allowed as readonly string[]).includes(normalised)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${s}`);
  }
  return normalised as T;
}

/**
 * Reads `conf/` (the names e-mission operators know) and lets environment variables override each key.
 * Everything is validated here, once; a bad value stops start-up with a message naming the key.
 */
export function loadConfig(options: { env?: Env; confDir?: string } = {}): Config {
  const env = options.env ?? process.env;
  const confDir = resolve(options.confDir ?? env['ITINERA_CONF_DIR'] ?? join(process.cwd(), 'conf'));
  const web = section(readJson(join(confDir, 'net/api/webserver.conf')), 'server');
  const webLog = readJson(join(confDir, 'log/webserver.conf'));
  const intakeLog = readJson(join(confDir, 'log/intake.conf'));
  const servers = readJson(join(confDir, 'storage/servers.conf'));
  const kafka = section(servers, 'kafka');
  const cassandra = section(servers, 'cassandra');
  const retention = section(servers, 'retention');
  const registry = section(servers, 'schema_registry');
  const secrets = readJson(join(confDir, 'net/auth/secret_list.json'));
  const tokens = readJson(join(confDir, 'net/auth/token_list.json'));
  const consoleConf = section(readJson(join(confDir, 'net/console.conf')), 'console');
  const oidcConf = section(consoleConf, 'oidc');
  /** A console.conf key and its value, which the environment variable CONSOLE_<KEY> overrides. */
  const consoleKey = (key: string, fallback: unknown, from = consoleConf): [string, unknown] => {
    const name = `CONSOLE_${key.toUpperCase()}`;
    return [name, pick(name, env, from[key], fallback)];
  };
  const optionalList = ([name, value]: [string, unknown]): string[] =>
    value === '' || (Array.isArray(value) && value.length === 0) ? [] : asList(name, value);
  /** An `oidc` key of console.conf and its value, which CONSOLE_OIDC_<KEY> overrides. */
  const oidcKey = (key: string, fallback: unknown) =>
    consoleKey(`oidc_${key}`, fallback, { [`oidc_${key}`]: oidcConf[key] });
  /** An oidc key mapping programs to lists: CONSOLE_OIDC_<KEY> holds it as JSON. */
  const programLists = (key: string) => asProgramLists(...oidcKey(key, {}));
  const consolePort = asPort(...consoleKey('port', 8090));
  const consoleHost = asString(...consoleKey('host', '127.0.0.1'));
  /** A webserver.conf key and its value, which the environment variable WEBSERVER_<KEY> overrides. */
  const webKey = (key: string, fallback: unknown): [string, unknown] => {
    const name = `WEBSERVER_${key.toUpperCase()}`;
    return [name, pick(name, env, web[key], fallback)];
  };

  const config: Config = {
    webserver: {
      host: asString(...webKey('host', '127.0.0.1')),
      port: asPort(...webKey('port', 8080)),
      timeoutSeconds: asPositive(...webKey('timeout', 3600)),
      auth: asOneOf(...webKey('auth', 'skip'), ['skip', 'token_list', 'secret'] as const),
      aggregateCallAuth: asOneOf(...webKey('aggregate_call_auth', 'no_auth'), [
        'no_auth',
        'user_only',
        'never',
      ] as const),
      aggregateMinUsers: asPositiveInteger(...webKey('aggregate_min_users', 5)),
      aggregateMinHistoryDays: asNonNegative(...webKey('aggregate_min_history_days', 14)),
      metricsMaxSections: asPositiveInteger(...webKey('metrics_max_sections', 500_000)),
      findEntriesMax: asPositiveInteger(...webKey('find_entries_max', 100_000)),
      findEntriesMaxBytes: asPositive(...webKey('find_entries_max_mb', 64)) * 1024 * 1024,
      bodyLimitBytes: asPositive(...webKey('body_limit_mb', 64)) * 1024 * 1024,
      maxConcurrentPuts: asPositive(...webKey('max_concurrent_puts', 16)),
      putActiveBytes: asPositive(...webKey('put_active_mb', 32)) * 1024 * 1024,
      otherBodyLimitBytes: asPositive(...webKey('other_body_limit_kb', 1024)) * 1024,
      bodyBudgetBytes: asPositive(...webKey('body_budget_mb', 256)) * 1024 * 1024,
      putQueueBytes: asPositive(...webKey('put_queue_mb', 128)) * 1024 * 1024,
      bodyIdleTimeoutMs: asPositive(...webKey('body_idle_timeout_s', 60)) * 1000,
      bodyMinBytesPerSecond: asPositive(...webKey('body_min_rate_bps', 512)),
      userCacheEntries: asPositive(...webKey('user_cache_entries', 100_000)),
      userCacheTtlMs: asPositive(...webKey('user_cache_ttl_s', 60)) * 1000,
      programRefreshMs: asPositive(...webKey('program_refresh_s', 5)) * 1000,
      exportIdleTimeoutMs: asPositive(...webKey('export_idle_timeout_s', 60)) * 1000,
      secretPrefixes: Array.isArray(secrets['client_secret_list']) ? secrets['client_secret_list'].map(String) : [],
      tokenList: Array.isArray(tokens['tokens']) ? tokens['tokens'].map(String) : [],
    },
    log: {
      level: asOneOf('ITINERA_LOG_LEVEL', pick('ITINERA_LOG_LEVEL', env, webLog['level'], 'debug'), [
        'error',
        'warn',
        'info',
        'debug',
      ] as const),
      web: logFiles('ITINERA_LOG', env, webLog, 1024, 3),
      intake: logFiles('ITINERA_INTAKE_LOG', env, intakeLog, 100, 5),
    },
    kafka: {
      brokers: asList('KAFKA_BROKERS', pick('KAFKA_BROKERS', env, kafka['brokers'], '127.0.0.1:9092')),
      topicPrefix: String(pick('ITINERA_TOPIC_PREFIX', env, kafka['topic_prefix'], 'itinera.')),
      partitions: asPositive('ITINERA_PARTITIONS', pick('ITINERA_PARTITIONS', env, kafka['partitions'], 16)),
      ackTimeoutMs: asPositive(
        'KAFKA_ACK_TIMEOUT_MS',
        pick('KAFKA_ACK_TIMEOUT_MS', env, kafka['ack_timeout_ms'], 60_000),
      ),
      sasl: kafkaSasl(env, section(kafka, 'sasl')),
      tls: tlsSettings(['KAFKA_TLS', 'KAFKA_TLS_CA_FILE'], env, section(kafka, 'tls')),
    },
    cassandra: {
      contactPoints: asList(
        'CASSANDRA_CONTACT_POINTS',
        pick('CASSANDRA_CONTACT_POINTS', env, cassandra['contact_points'], '127.0.0.1:9042'),
      ),
      localDataCenter: asString(
        'CASSANDRA_LOCAL_DC',
        pick('CASSANDRA_LOCAL_DC', env, cassandra['local_data_center'], 'datacenter1'),
      ),
      keyspace: asKeyspace(pick('CASSANDRA_KEYSPACE', env, cassandra['keyspace'], 'itinera')),
      replicationFactor: asPositiveInteger(
        'CASSANDRA_REPLICATION_FACTOR',
        pick('CASSANDRA_REPLICATION_FACTOR', env, cassandra['replication_factor'], 1),
      ),
      credentials: credentials(['CASSANDRA_USERNAME', 'CASSANDRA_PASSWORD'], env, cassandra),
      tls: tlsSettings(['CASSANDRA_TLS', 'CASSANDRA_TLS_CA_FILE'], env, section(cassandra, 'tls')),
    },
    retention: {
      rawTopicDays: asPositive(
        'ITINERA_RAW_TOPIC_DAYS',
        pick('ITINERA_RAW_TOPIC_DAYS', env, retention['raw_topic_days'], 30),
      ),
      deadLetterTopicDays: asPositive(
        'ITINERA_DEAD_LETTER_TOPIC_DAYS',
        pick('ITINERA_DEAD_LETTER_TOPIC_DAYS', env, retention['dead_letter_topic_days'], 56),
      ),
      rawLocationDays: asNonNegative(
        'ITINERA_RAW_LOCATION_DAYS',
        pick('ITINERA_RAW_LOCATION_DAYS', env, retention['raw_location_days'], 0),
      ),
    },
    schemaRegistry: {
      url: asString(
        'SCHEMA_REGISTRY_URL',
        pick('SCHEMA_REGISTRY_URL', env, registry['url'], 'http://127.0.0.1:8081/apis/ccompat/v7'),
      ).replace(/\/+$/, ''),
      credentials: credentials(['SCHEMA_REGISTRY_USERNAME', 'SCHEMA_REGISTRY_PASSWORD'], env, registry),
    },
    security: {
      allowInsecure: optionalList([
        'ITINERA_ALLOW_INSECURE',
        pick('ITINERA_ALLOW_INSECURE', env, section(servers, 'security')['allow_insecure'], ''),
      ]).map((s) => asOneOf('ITINERA_ALLOW_INSECURE', s, INSECURE_SETTINGS)),
    },
    console: {
      host: consoleHost,
      port: consolePort,
      publicUrl: asString(...consoleKey('public_url', `http://${consoleHost}:${consolePort}`)).replace(/\/+$/, ''),
      sessionKeys: optionalList(consoleKey('session_keys', [])),
      tileUrl: String(consoleKey('tile_url', '')[1]),
      participantsRefreshSeconds: asPositive(...consoleKey('participants_refresh_s', 30)),
      stalledMinutes: asPositive(...consoleKey('stalled_minutes', 5)),
      behindHours: asPositive(...consoleKey('behind_hours', 6)),
      oidc: {
        issuer: asString(...oidcKey('issuer', 'http://127.0.0.1:8089')),
        clientId: asString(...oidcKey('client_id', 'itinera-console')),
        clientSecret: asString(...oidcKey('client_secret', 'itinera-development-only-secret')),
        devProvider: String(oidcKey('dev_provider', false)[1]) === 'true',
        emailVerified: asOneOf(...oidcKey('email_verified', 'required'), ['required', 'when_sent'] as const),
        readerEmails: optionalList(oidcKey('reader_emails', [])),
        operatorEmails: optionalList(oidcKey('operator_emails', [])),
        groupClaim: asString(...oidcKey('group_claim', 'groups')),
        readerGroups: optionalList(oidcKey('reader_groups', [])),
        operatorGroups: optionalList(oidcKey('operator_groups', [])),
        programAdminEmails: programLists('program_admin_emails'),
        programAdminGroups: programLists('program_admin_groups'),
      },
    },
  };
  return deepFreeze(config);
}

/**
 * A user name and password (environment variables, else the section's `username` and `password`): both or neither,
 * so a half-configured secret stops start-up instead of failing every connection later.
 */
function credentials(
  [userVar, passwordVar]: [string, string],
  env: Env,
  conf: Record<string, unknown>,
): Credentials | null {
  const username = pick(userVar, env, conf['username'], '');
  const password = pick(passwordVar, env, conf['password'], '');
  if (username === '' && password === '') return null;
  if (username === '' || password === '') throw new ConfigError(`${userVar} and ${passwordVar} must be set together`);
  return { username: asString(userVar, username), password: String(password) };
}

function kafkaSasl(env: Env, conf: Record<string, unknown>): Config['kafka']['sasl'] {
  const creds = credentials(['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'], env, conf);
  if (!creds) return null;
  const mechanism = String(pick('KAFKA_SASL_MECHANISM', env, conf['mechanism'], ''))
    .trim()
    .toLowerCase();
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism))
    throw new ConfigError(`KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, got ${mechanism}`);
  return { ...creds, mechanism: mechanism as SaslMechanism };
}

/** The switch (or the section's `enabled`) turns TLS on; the CA file variable (`ca_file`) names a CA to trust. */
function tlsSettings(
  [switchVar, caFileVar]: [string, string],
  env: Env,
  conf: Record<string, unknown>,
): TlsSettings | null {
  const enabled = String(pick(switchVar, env, conf['enabled'], false)).toLowerCase();
  if (enabled !== 'true' && enabled !== 'false')
    throw new ConfigError(`${switchVar} must be true or false, got ${enabled}`);
  const caFile = String(pick(caFileVar, env, conf['ca_file'], ''));
  if (enabled === 'false') {
    if (caFile !== '') throw new ConfigError(`${caFileVar} is set but ${switchVar} is not true`);
    return null;
  }
  if (caFile === '') return { ca: undefined };
  try {
    return { ca: readFileSync(caFile, 'utf8') };
  } catch (cause) {
    throw new ConfigError(`${caFileVar} ${caFile} cannot be read`, { cause });
  }
}

function asKeyspace(value: unknown): string {
  const s = asString('CASSANDRA_KEYSPACE', value);
  // Keyspace names are interpolated into DDL, so only CQL identifier characters are allowed.
  if (!/^[a-z][a-z0-9_]{0,47}$/.test(s))
    throw new ConfigError(`CASSANDRA_KEYSPACE must match [a-z][a-z0-9_]*, got ${s}`);
  return s;
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
  return { host: address.slice(0, at), port: asPort(address, address.slice(at + 1)) };
}
