/** `conf/storage/servers.conf`: where Kafka, Cassandra and the schema registry are, how to log in, and retention. */
import { key } from './config-declaration.js';
import { credentials, sasl, SASL_MECHANISMS, tls } from './server-secrets.js';
import * as types from './value-types.js';

const FILE = 'storage/servers.conf';

/**
 * Development settings an operator may keep off loopback on purpose, each named (`ITINERA_ALLOW_INSECURE`): see
 * exposure.ts.
 */
export const INSECURE_SETTINGS = ['skip-auth', 'cassandra-default-login', 'kafka-plaintext'] as const;

const tlsKeys = (section: 'kafka' | 'cassandra', switchEnv: string, caFileEnv: string) =>
  tls(
    key({
      file: FILE,
      path: `${section}.tls.enabled`,
      env: switchEnv,
      type: types.boolean,
      default: false,
      doc: `TLS to the ${section === 'kafka' ? 'brokers' : 'nodes'}; their certificate is always verified.`,
    }),
    key({
      file: FILE,
      path: `${section}.tls.ca_file`,
      env: caFileEnv,
      type: types.text,
      default: '',
      doc: 'PEM file of the authority that signed their certificate, when Node.js does not trust it already.',
    }),
  );

export const kafkaKeys = {
  brokers: key({
    file: FILE,
    path: 'kafka.brokers',
    env: 'KAFKA_BROKERS',
    type: types.addressList,
    default: ['127.0.0.1:9092'],
    doc: 'Brokers to bootstrap from.',
  }),
  topicPrefix: key({
    file: FILE,
    path: 'kafka.topic_prefix',
    env: 'ITINERA_TOPIC_PREFIX',
    type: types.text,
    default: 'itinera.',
    doc: 'Prefix of every topic and consumer group name; tests use a unique one each.',
  }),
  partitions: key({
    file: FILE,
    path: 'kafka.partitions',
    env: 'ITINERA_PARTITIONS',
    type: types.positiveNumber,
    default: 16,
    unit: 'partitions',
    doc: 'Partitions of the per-user topics (deploy/provision/topics.ts says why 16).',
  }),
  // Long, because a burst of big puts queues behind one producer and the phones wait minutes (iOS: 500 s); a dead
  // broker fails much sooner, when kafkajs gives up connecting.
  ackTimeoutMs: key({
    file: FILE,
    path: 'kafka.ack_timeout_ms',
    env: 'KAFKA_ACK_TIMEOUT_MS',
    type: types.positiveNumber,
    default: 60_000,
    unit: 'ms',
    doc: 'How long a put waits for Kafka’s acknowledgement before answering 503.',
  }),
  sasl: sasl(
    key({
      file: FILE,
      path: 'kafka.sasl.mechanism',
      env: 'KAFKA_SASL_MECHANISM',
      type: types.oneOf(SASL_MECHANISMS, (value) => value.toLowerCase()),
      doc: 'SASL mechanism, required with a user name (Confluent Cloud: `plain`; MSK, Strimzi: `scram-sha-512`).',
    }),
    key({
      file: FILE,
      path: 'kafka.sasl.username',
      env: 'KAFKA_SASL_USERNAME',
      type: types.trimmedText,
      default: '',
      doc: 'SASL user name, when the brokers require one; set with its password.',
    }),
    key({
      file: FILE,
      path: 'kafka.sasl.password',
      env: 'KAFKA_SASL_PASSWORD',
      type: types.text,
      default: '',
      secret: true,
      doc: 'SASL password.',
    }),
  ),
  tls: tlsKeys('kafka', 'KAFKA_TLS', 'KAFKA_TLS_CA_FILE'),
};

export const cassandraKeys = {
  contactPoints: key({
    file: FILE,
    path: 'cassandra.contact_points',
    env: 'CASSANDRA_CONTACT_POINTS',
    type: types.addressList,
    default: ['127.0.0.1:9042'],
    doc: 'Nodes to connect to first; the driver finds the others.',
  }),
  localDataCenter: key({
    file: FILE,
    path: 'cassandra.local_data_center',
    env: 'CASSANDRA_LOCAL_DC',
    type: types.nonEmptyText,
    default: 'datacenter1',
    doc: 'Datacenter whose nodes the driver queries.',
  }),
  keyspace: key({
    file: FILE,
    path: 'cassandra.keyspace',
    env: 'CASSANDRA_KEYSPACE',
    type: types.cqlName,
    default: 'itinera',
    doc: 'Keyspace of every table.',
  }),
  // More than one replica makes the keyspace NetworkTopologyStrategy in local_data_center, so the LOCAL_QUORUM every
  // query uses survives one node down.
  replicationFactor: key({
    file: FILE,
    path: 'cassandra.replication_factor',
    env: 'CASSANDRA_REPLICATION_FACTOR',
    type: types.positiveInteger,
    default: 1,
    unit: 'replicas',
    doc: 'Replicas of each row in the local datacenter, used when provisioning creates the keyspace.',
  }),
  credentials: credentials(
    key({
      file: FILE,
      path: 'cassandra.username',
      env: 'CASSANDRA_USERNAME',
      type: types.trimmedText,
      default: '',
      doc: 'Role to log in as, for a cluster with `PasswordAuthenticator` (K8ssandra, Astra); set with its password.',
    }),
    key({
      file: FILE,
      path: 'cassandra.password',
      env: 'CASSANDRA_PASSWORD',
      type: types.text,
      default: '',
      secret: true,
      doc: 'Password of that role.',
    }),
  ),
  tls: tlsKeys('cassandra', 'CASSANDRA_TLS', 'CASSANDRA_TLS_CA_FILE'),
};

/** How long data is kept; see the README's "Your data". */
export const retentionKeys = {
  // Plus one day (segments roll daily), also the longest a deleted account's entries remain in Kafka.
  rawTopicDays: key({
    file: FILE,
    path: 'retention.raw_topic_days',
    env: 'ITINERA_RAW_TOPIC_DAYS',
    type: types.positiveNumber,
    default: 30,
    unit: 'days',
    doc: 'How long the raw topics (usercache, timeseries) keep records: how far `reset-pipeline -a` can rewind.',
  }),
  deadLetterTopicDays: key({
    file: FILE,
    path: 'retention.dead_letter_topic_days',
    env: 'ITINERA_DEAD_LETTER_TOPIC_DAYS',
    type: types.positiveNumber,
    default: 56,
    unit: 'days',
    doc: 'How long the error-timeseries topic keeps dead letters (they are also in the error table).',
  }),
  rawLocationDays: key({
    file: FILE,
    path: 'retention.raw_location_days',
    env: 'ITINERA_RAW_LOCATION_DAYS',
    type: types.nonNegativeNumber,
    default: 0,
    unit: 'days',
    doc: 'How long raw location entries stay in the timeseries, applied by `itinera retention`; 0 keeps them.',
  }),
};

export const schemaRegistryKeys = {
  url: key({
    file: FILE,
    path: 'schema_registry.url',
    env: 'SCHEMA_REGISTRY_URL',
    type: types.url,
    default: 'http://127.0.0.1:8081/apis/ccompat/v7',
    doc: 'Base URL of the Confluent-compatible API (Apicurio: `/apis/ccompat/v7`); `https://` for TLS.',
  }),
  credentials: credentials(
    key({
      file: FILE,
      path: 'schema_registry.username',
      env: 'SCHEMA_REGISTRY_USERNAME',
      type: types.trimmedText,
      default: '',
      doc: 'HTTP basic authentication user (Confluent Cloud: the API key); set with its password.',
    }),
    key({
      file: FILE,
      path: 'schema_registry.password',
      env: 'SCHEMA_REGISTRY_PASSWORD',
      type: types.text,
      default: '',
      secret: true,
      doc: 'HTTP basic authentication password (Confluent Cloud: the API secret).',
    }),
  ),
};

export const securityKeys = {
  allowInsecure: key({
    file: FILE,
    path: 'security.allow_insecure',
    env: 'ITINERA_ALLOW_INSECURE',
    type: types.listOf(INSECURE_SETTINGS),
    default: [],
    doc: 'Development settings allowed although a network reaches them (shared/config/exposure.ts); logged at every start.',
  }),
};
