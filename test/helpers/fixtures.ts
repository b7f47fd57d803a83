import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The e-mission recordings the project carries for its tests and benchmark (`test/fixtures/emission`, their source
 * and licence in its README). Found from this file's own place, so a clone passes wherever it sits.
 */
export function emissionFixturesDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'emission');
}
