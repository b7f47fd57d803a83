import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../../../shared/config/repo-root.js';

/**
 * The public dashboard's page, script and stylesheet (services/gateway/public/web/), read from the source tree at
 * the repository root: tsc copies no HTML, CSS or browser JS into dist/, so the compiled gateway reads them there
 * too. The page is the same for every program (its script reads the program's figures), and names its script and
 * stylesheet with their content version (`../dashboard.js?v=<hash>`), so those are cached until they change.
 */

export const dashboardWebDir = join(repoRoot, 'services', 'gateway', 'public', 'web');

/** The files under /public/ that are no program's: what `GET /public/:file` serves. */
export const DASHBOARD_ASSETS = ['dashboard.js', 'dashboard.css'] as const;
export type DashboardAsset = (typeof DASHBOARD_ASSETS)[number];

export interface WebFile {
  body: Buffer;
  type: string;
  /** A quoted ETag, and the version the page names the file with. */
  etag: string;
  version: string;
}

export interface DashboardFiles {
  page: WebFile;
  assets: ReadonlyMap<DashboardAsset, WebFile>;
}

const TYPES: Record<DashboardAsset, string> = {
  'dashboard.js': 'application/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
};

function webFile(body: Buffer, type: string): WebFile {
  const version = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, type, etag: `"${version}"`, version };
}

async function loadDashboardFiles(): Promise<DashboardFiles> {
  const assets = new Map<DashboardAsset, WebFile>();
  for (const name of DASHBOARD_ASSETS)
    assets.set(name, webFile(await readFile(join(dashboardWebDir, name)), TYPES[name]));
  const html = (await readFile(join(dashboardWebDir, 'index.html'), 'utf8')).replace(
    /(\s(?:src|href)=")\.\.\/(dashboard\.(?:js|css))"/g,
    (all, head: string, name: DashboardAsset) =>
      assets.has(name) ? `${head}../${name}?v=${assets.get(name)!.version}"` : all,
  );
  return { page: webFile(Buffer.from(html), 'text/html; charset=utf-8'), assets };
}

let loaded: Promise<DashboardFiles> | undefined;

/** The files, read once per process at the first request; an edit of web/ shows after a restart. */
export function dashboardFiles(): Promise<DashboardFiles> {
  loaded ??= loadDashboardFiles().catch((err: unknown) => {
    loaded = undefined;
    throw err;
  });
  return loaded;
}
