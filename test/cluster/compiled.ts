import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/**
 * The compiled service of a source path (`services/gateway/main.ts` → `dist/services/gateway/main.js`), as
 * production runs it; `npm run test:cluster` builds first. Compiled, a restart after a kill also costs the cores no
 * transpiling while they are short of time.
 */
export function compiled(script: string): string {
  return join(repoRoot, 'dist', script.replace(/\.ts$/, '.js'));
}
