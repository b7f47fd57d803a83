/**
 * Where the repository is, whether the code runs from its TypeScript sources (tsx: development, tests, benchmark)
 * or compiled into dist/ (`npm run build`: production). The two layouts put a module at different depths
 * (services/cli/main.ts, dist/services/cli/main.js) and tsc copies no other file, so code that reads a file
 * of the repository (conf/, schemas/, deploy/local/ templates, .infra/) resolves it from `repoRoot`, never
 * from its own location.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors/index.js';

/** The nearest folder above this module holding package.json; found once, at import. */
export const repoRoot = ((): string => {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new ConfigError(`no package.json in or above ${start}`);
  }
})();

/** True under tsx (this module is a .ts file), false when compiled (a .js file in dist/). */
export const runsFromSources = import.meta.url.endsWith('.ts');

/**
 * Node's arguments to run one service's entry point (services/<service>/main) in a child process, in the form
 * the current process runs in: the compiled main.js next to this build, or main.ts through tsx in development.
 */
export function serviceNodeArgs(service: string, ...args: string[]): string[] {
  const main = fileURLToPath(
    new URL(`../../services/${service}/main.${runsFromSources ? 'ts' : 'js'}`, import.meta.url),
  );
  return runsFromSources ? ['--import', 'tsx', main, ...args] : [main, ...args];
}
