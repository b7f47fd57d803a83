import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot, runsFromSources } from '../../shared/config/repo-root.js';
import { ConfigError } from '../../shared/errors/index.js';

/**
 * Each console page's JavaScript as ONE minified module (esbuild): the page's entry in web/js/ with the modules it
 * imports, and Leaflet (day) or the parts of Chart.js the summary draws with. A page then loads one script instead
 * of a graph of small modules plus a 150–210 kB vendor script parsed on every load.
 *
 * Production runs compiled JavaScript without development dependencies: `npm run build` writes the bundles next to
 * the compiled console (dist/services/console/web-bundles/, by build-web.ts) and the compiled console reads them.
 * Under tsx (development, tests, the benchmark) they are built in memory when the console starts (~0.3 s), so an
 * edit of web/js/ shows after a restart, never a stale build.
 */

/** The pages' entry modules, in services/console/web/js/. */
export const PAGE_ENTRIES = [
  'participants',
  'radar',
  'day',
  'pipeline',
  'dead-letters',
  'reset',
  'summary',
  'tokens',
  'programs',
] as const;

export interface WebBundle {
  /** The path below /admin/ it is served at: js/<entry>.js, where the unbundled entry is. */
  path: string;
  code: Buffer;
  /** A content hash: the pages ask for `<path>?v=<hash>`, cached for a year. */
  hash: string;
}

const jsDir = join(repoRoot, 'services', 'console', 'web', 'js');
/** Where `npm run build` leaves them: next to the compiled module. */
export const prebuiltDir = join(dirname(fileURLToPath(import.meta.url)), 'web-bundles');

export const contentHash = (content: Buffer | string): string =>
  createHash('sha256').update(content).digest('base64url').slice(0, 16);

/** Builds every page's bundle with esbuild (a development dependency: imported only here). */
export async function buildWebBundles(): Promise<WebBundle[]> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: PAGE_ENTRIES.map((entry) => join(jsDir, `${entry}.js`)),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    // Leaflet's and Chart.js's licence headers stay, at the end of the bundle.
    legalComments: 'eof',
    write: false,
    outdir: 'out',
    logLevel: 'silent',
  });
  return result.outputFiles.map((file) => {
    const code = Buffer.from(file.contents);
    return { path: `js/${file.path.split('/').pop()}`, code, hash: contentHash(code) };
  });
}

/** `npm run build`: the bundles into `dir` (default: dist/services/console/web-bundles/). */
export async function writeWebBundles(dir = prebuiltDir): Promise<WebBundle[]> {
  const bundles = await buildWebBundles();
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'js'), { recursive: true });
  for (const b of bundles) await writeFile(join(dir, b.path), b.code);
  return bundles;
}

/** The bundles the console serves: built now under tsx; read from the build when compiled. */
export async function loadWebBundles(): Promise<WebBundle[]> {
  if (runsFromSources) return buildWebBundles();
  let names: string[];
  try {
    names = await readdir(join(prebuiltDir, 'js'));
  } catch {
    throw new ConfigError(`the console's page bundles are missing from ${prebuiltDir}: run npm run build`);
  }
  // An interrupted build leaves some: a page without its bundle would be served its raw module, which cannot run.
  const missing = PAGE_ENTRIES.filter((entry) => !names.includes(`${entry}.js`));
  if (missing.length > 0)
    throw new ConfigError(
      `the console's bundles of ${missing.join(', ')} are missing from ${prebuiltDir}: run npm run build`,
    );
  return Promise.all(
    names
      .filter((name) => name.endsWith('.js'))
      .map(async (name) => {
        const code = await readFile(join(prebuiltDir, 'js', name));
        return { path: `js/${name}`, code, hash: contentHash(code) };
      }),
  );
}
