/**
 * Every configuration key, once: the tree has the shape of the `Config` the services get, and each key names its conf
 * file and path, its environment variable, its type, unit, default and a line of doc. The loader (load-config.ts),
 * the `Config` type, docs/configuration.md (`npm run docs:config`) and the tests all walk it.
 */
import { alertKeys } from './alert-keys.js';
import { consoleKeys } from './console-keys.js';
import { logKeys } from './log-keys.js';
import { cassandraKeys, kafkaKeys, retentionKeys, schemaRegistryKeys, securityKeys } from './servers-keys.js';
import { webserverKeys } from './webserver-keys.js';

export const CONFIG_KEYS = {
  webserver: webserverKeys,
  log: logKeys,
  kafka: kafkaKeys,
  cassandra: cassandraKeys,
  retention: retentionKeys,
  schemaRegistry: schemaRegistryKeys,
  security: securityKeys,
  console: consoleKeys,
  alerts: alertKeys,
};
