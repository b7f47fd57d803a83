import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real phone data (shared/data) lives beside the checkout, not in it: `<checkout>/../shared/data`, or
 * wherever ITINERA_SHARED_DATA points.
 */
export function sharedDataDir(): string {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(process.env['ITINERA_SHARED_DATA'] ?? join(repoRoot, '..', 'shared', 'data'));
}
