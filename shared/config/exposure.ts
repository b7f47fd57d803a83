/**
 * Settings that are safe on one machine and dangerous once a network reaches them. The shipped configuration is a
 * development one (phone tokens taken as e-mails, Cassandra's well-known superuser, Kafka without credentials), so
 * each is refused at start-up as soon as the address it concerns is not loopback, unless the operator names it in
 * `ITINERA_ALLOW_INSECURE` (or `security.allow_insecure` in conf/storage/servers.conf), which is then logged at
 * every start.
 */
import { ConfigError } from '../errors/index.js';
import { splitHostPort, type Config, type InsecureSetting } from './load-config.js';

/** Which process is starting: each is exposed by the addresses it uses. */
export type Component = 'gateway' | 'console' | 'worker';

export interface Exposure {
  readonly setting: InsecureSetting;
  readonly risk: string;
}

/**
 * Whether a host name or address is this machine's loopback: `localhost`, 127.0.0.0/8, ::1. The wildcard addresses
 * (0.0.0.0, ::) listen on every interface and are not.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

const hostOf = (address: string, defaultPort: number) => splitHostPort(address, defaultPort).host;

/** Cassandra's built-in superuser with its built-in password: the first thing anyone tries. */
const DEFAULT_CASSANDRA_LOGIN = { username: 'cassandra', password: 'cassandra' };

/** The development settings in `config` that a network could reach, for a process of kind `component`. */
export function exposures(config: Config, component: Component): Exposure[] {
  const found: Exposure[] = [];
  const { webserver, kafka, cassandra } = config;
  if (component === 'gateway' && webserver.auth === 'skip' && !isLoopbackHost(webserver.host))
    found.push({
      setting: 'skip-auth',
      risk: `the gateway listens on ${webserver.host} with auth "skip": whoever knows a participant's token (their e-mail) reads their data`,
    });
  const creds = cassandra.credentials;
  const remoteCassandra = cassandra.contactPoints.filter((a) => !isLoopbackHost(hostOf(a, 9042)));
  if (
    remoteCassandra.length > 0 &&
    creds?.username === DEFAULT_CASSANDRA_LOGIN.username &&
    creds.password === DEFAULT_CASSANDRA_LOGIN.password
  )
    found.push({
      setting: 'cassandra-default-login',
      risk: `Cassandra at ${remoteCassandra.join(', ')} is reached with its built-in superuser cassandra/cassandra: set CASSANDRA_USERNAME and CASSANDRA_PASSWORD to a role of your own`,
    });
  const remoteBrokers = kafka.brokers.filter((a) => !isLoopbackHost(hostOf(a, 9092)));
  if (remoteBrokers.length > 0 && kafka.sasl === null)
    found.push({
      setting: 'kafka-plaintext',
      risk: `the Kafka brokers at ${remoteBrokers.join(', ')} are used without credentials: whoever reaches them reads and writes every topic; set KAFKA_SASL_*`,
    });
  return found;
}

/**
 * Stops start-up on an exposure the operator has not allowed by name; reports each allowed one through `warn`, so
 * the accepted risk is in the log of every start.
 */
export function refuseExposure(config: Config, component: Component, warn: (line: string) => void): void {
  const found = exposures(config, component);
  const refused = found.filter((e) => !config.security.allowInsecure.includes(e.setting));
  for (const e of found.filter((f) => !refused.includes(f)))
    warn(`INSECURE, allowed by ITINERA_ALLOW_INSECURE=${e.setting}: ${e.risk}`);
  if (refused.length > 0)
    throw new ConfigError(
      [
        `refusing to start: ${refused.length} development setting(s) reachable from a network`,
        ...refused.map((e) => `  - ${e.risk} (to accept the risk on purpose: ITINERA_ALLOW_INSECURE=${e.setting})`),
      ].join('\n'),
    );
}
