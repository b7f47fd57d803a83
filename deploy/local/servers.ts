import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../shared/config/index.js';
import { splitHostPort } from '../../shared/config/index.js';

/**
 * The three servers of the local stack: where their jars come from, how they are configured and launched.
 * Versions are pinned here and nowhere else.
 */
export interface ServerSpec {
  readonly name: 'kafka' | 'cassandra' | 'registry';
  /** Folder under the infra directory holding libs, config, data, pid and log. */
  readonly dir: string;
  /** Maven POM (deploy/local/maven) whose runtime closure is the server, or a direct download. */
  readonly install: { pom: string; goal: 'copy-dependencies' | 'download'; url?: string };
  /** Heap, sized for a 2-core, 24 GiB machine that also runs the services and tests. */
  readonly heap: string;
  /** Seconds to wait for readiness before giving up with the tail of the log. */
  readonly readyTimeoutSeconds: number;
}

export const KAFKA_VERSION = '4.1.1';
export const CASSANDRA_VERSION = '5.0.6';
export const APICURIO_VERSION = '3.0.9';

export const servers: readonly ServerSpec[] = [
  {
    name: 'cassandra',
    dir: 'cassandra',
    install: { pom: 'cassandra.pom.xml', goal: 'copy-dependencies' },
    heap: '-Xms1g -Xmx1g',
    readyTimeoutSeconds: 240,
  },
  {
    name: 'kafka',
    dir: 'kafka',
    install: { pom: 'kafka.pom.xml', goal: 'copy-dependencies' },
    heap: '-Xms512m -Xmx768m',
    readyTimeoutSeconds: 120,
  },
  {
    name: 'registry',
    dir: 'apicurio',
    install: {
      pom: 'apicurio.pom.xml',
      goal: 'download',
      // Apicurio 3.0.9's parent POM is not on Maven Central, so Maven's resolver refuses the artifact
      // ("Failed to read artifact descriptor"); the download plugin fetches the same file by URL into ~/.m2.
      url: `https://repo.maven.apache.org/maven2/io/apicurio/apicurio-registry-app/${APICURIO_VERSION}/apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`,
    },
    heap: '-Xms128m -Xmx512m',
    readyTimeoutSeconds: 120,
  },
];

export interface LocalAddresses {
  /** `saslPort`: the single node's second listener, which asks for `LOCAL_KAFKA_SASL` (the cluster has none). */
  kafka: { host: string; port: number; controllerPort: number; saslPort?: number };
  cassandra: { host: string; port: number; storagePort: number };
  registry: { host: string; port: number };
}

/**
 * The SASL/PLAIN account of the local broker's SASL listener, for the tests that prove a client configured with
 * credentials (config.kafka.sasl) reaches a broker that demands them. Local development only: the services
 * themselves use the plain listener.
 */
export const LOCAL_KAFKA_SASL = {
  mechanism: 'plain',
  username: 'itinera_local',
  password: 'local-development-only',
} as const;

/** The local stack listens where the configuration says the servers are, so one override moves both. */
export function localAddresses(config: Config): LocalAddresses {
  const kafka = splitHostPort(config.kafka.brokers[0] ?? '127.0.0.1:9092', 9092);
  const cassandra = splitHostPort(config.cassandra.contactPoints[0] ?? '127.0.0.1:9042', 9042);
  const registryUrl = new URL(config.schemaRegistry.url);
  return {
    kafka: { ...kafka, controllerPort: kafka.port + 1, saslPort: kafka.port + 2 },
    cassandra: { ...cassandra, storagePort: 7000 + (cassandra.port - 9042) },
    registry: { host: registryUrl.hostname, port: Number(registryUrl.port || 80) },
  };
}

/** The java command line of each server; `libs` is the folder of resolved jars. */
export function launchArgs(spec: ServerSpec, home: string, addresses: LocalAddresses, jvmOptions: string[]): string[] {
  const heap = spec.heap.split(' ');
  switch (spec.name) {
    case 'kafka':
      return [
        ...heap,
        '-server',
        '-XX:+UseG1GC',
        '-XX:MaxGCPauseMillis=20',
        '-XX:InitiatingHeapOccupancyPercent=35',
        '-XX:+ExplicitGCInvokesConcurrent',
        '-Djava.awt.headless=true',
        '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
        '-Dorg.slf4j.simpleLogger.log.kafka.server.KafkaRaftServer=info',
        '-Dorg.slf4j.simpleLogger.showDateTime=true',
        `-Dkafka.logs.dir=${join(home, 'logs')}`,
        '-cp',
        `${join(home, 'libs')}/*`,
        'kafka.Kafka',
        join(home, 'server.properties'),
      ];
    case 'cassandra': {
      const libs = join(home, 'libs');
      const jamm = readdirSync(libs).find((f) => f.startsWith('jamm-'));
      return [
        ...heap,
        ...jvmOptions,
        ...(jamm ? [`-javaagent:${join(libs, jamm)}`] : []),
        `-Dcassandra.config=file://${join(home, 'conf', 'cassandra.yaml')}`,
        `-Dcassandra.storagedir=${join(home, 'data')}`,
        `-Dcassandra.logdir=${join(home, 'logs')}`,
        // The built-in superuser the clients log in as is created at once instead of 10 s after start.
        '-Dcassandra.superuser_setup_delay_ms=0',
        // Serve without first waiting for gossip to settle (at least 5 s at every start, longer on a busy machine), as
        // test clusters run: whoever uses a node here waits until the driver sees it up anyway.
        '-Dcassandra.skip_wait_for_gossip_to_settle=0',
        `-Dlogback.configurationFile=${join(home, 'conf', 'logback.xml')}`,
        `-Djava.io.tmpdir=${join(home, 'tmp')}`,
        `-Djna.tmpdir=${join(home, 'tmp')}`,
        '-cp',
        `${join(home, 'conf')}:${libs}/*`,
        'org.apache.cassandra.service.CassandraDaemon',
      ];
    }
    case 'registry':
      return [
        ...heap,
        '-Djava.util.logging.manager=org.jboss.logmanager.LogManager',
        `-Dquarkus.http.host=${addresses.registry.host}`,
        `-Dquarkus.http.port=${addresses.registry.port}`,
        '-Dquarkus.log.level=WARN',
        '-Dquarkus.log.category."io.quarkus".level=INFO',
        // File-backed H2 so registered schema ids survive a restart; Kafka messages carry those ids.
        `-Dapicurio.datasource.url=jdbc:h2:file:${join(home, 'data', 'registry')}`,
        '-jar',
        join(home, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`),
      ];
  }
}

/** True when the server's jars are already in the infra folder (then nothing is downloaded). */
export function isInstalled(spec: ServerSpec, home: string): boolean {
  if (spec.name === 'registry') return existsSync(join(home, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`));
  const libs = join(home, 'libs');
  return existsSync(libs) && readdirSync(libs).some((f) => f.endsWith('.jar'));
}
