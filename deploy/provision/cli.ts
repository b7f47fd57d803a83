/** Provisions servers that Itinera did not start itself (docker compose, a cluster): topics, tables, schemas. */
import { loadConfig } from '../../shared/config/index.js';
import { provision } from './provision.js';

provision(loadConfig()).then(
  (r) =>
    process.stdout.write(
      `provisioned: ${r.topics} topics, schema version ${r.schemaVersion}, ${r.subjects} Avro subjects\n`,
    ),
  (err: unknown) => {
    process.stderr.write(`provisioning failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
