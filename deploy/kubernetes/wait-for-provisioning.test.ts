import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { migrationVersions } from '../provision/migrate.js';
import { missingSteps } from './wait-for-provisioning.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('wait-for-provisioning', () => {
  it('When migrations or schemas are missing, then it names them, and nothing once all are in place', () => {
    const shipped = migrationVersions(readdirSync(join(root, 'schemas', 'cql')));
    expect(shipped[0]).toBe(1);
    expect(missingSteps(new Set(shipped), shipped, [])).toEqual([]);
    expect(missingSteps(new Set([1]), [1, 2], ['itinera.diary-value'])).toEqual([
      'CQL migration 002',
      'Avro schema of itinera.diary-value',
    ]);
  });
});
