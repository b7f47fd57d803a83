import { join } from 'node:path';
import type { Admin, Kafka } from 'kafkajs';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import { createCassandraClient, createCql, type Cql } from '../../shared/cassandra/index.js';
import { createKafka, createKeyedProducer, type KeyedProducer } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry, type AvroCodec } from '../../shared/schema-registry/index.js';
import { createUsersTable } from '../../shared/tables/index.js';

/** What an operator command works with: the configuration and connected clients of the deployment. */
export interface Session {
  config: Config;
  kafka: Kafka;
  admin: Admin;
  cql: Cql;
  codec: AvroCodec;
}

/** Ends the command with a message on standard error and an exit code (2: bad usage; 1: nothing to act on). */
export function fail(message: string, code = 2): never {
  process.stderr.write(`itinera: ${message}\n`);
  process.exit(code);
}

/** Connects to the deployment the configuration names (ITINERA_CONF_DIR, else conf/), runs `work`, disconnects. */
export async function withSession<T>(work: (s: Session) => Promise<T>): Promise<T> {
  const config = loadConfig({ confDir: process.env['ITINERA_CONF_DIR'] ?? join(repoRoot, 'conf') });
  const logger = createLogger({ component: 'cli', level: 'warn' });
  const cassandra = createCassandraClient({ ...config.cassandra });
  await cassandra.connect();
  const kafka = createKafka({ ...config.kafka, clientId: 'itinera-cli', logger });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work({
      config,
      kafka,
      admin,
      cql: createCql(cassandra),
      codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry)),
    });
  } finally {
    await admin.disconnect();
    await cassandra.shutdown();
  }
}

/** A producer for what a command publishes (replays, documents, tombstones); it connects on its first send, and the
 * command closes it. */
export function sessionProducer(s: Session): KeyedProducer {
  return createKeyedProducer({ ...s.config.kafka, clientId: 'itinera-cli' });
}

/** A user named by the token the phone logs in with or by uuid; an unknown token ends the command. */
export async function resolveUser(s: Session, who: string): Promise<string> {
  const user = await createUsersTable(s.cql, { cacheEntries: 1 }).findByEmail(who);
  if (user) return user.uuid;
  return /^[0-9a-f-]{36}$/.test(who) ? who : fail(`no user ${who}`, 1);
}
