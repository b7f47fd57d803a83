import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type Koa from 'koa';
import serve from 'koa-static';
import { repoRoot } from '../../shared/config/repo-root.js';
import { NotFoundError } from '../../shared/errors/index.js';

/**
 * The console's browser pages (services/console/web/) under /admin/, and the few vendor files they load
 * (Leaflet, Chart.js) under /admin/vendor/. Both are read from the source tree and node_modules at the repository
 * root: tsc copies no HTML, CSS or browser JS into dist/, so the compiled service finds them there too.
 *
 * Only GET and HEAD; a path that is not a plain relative path (`..`, a dot file, a backslash, a NUL, bad
 * percent-encoding) is refused with a 404 before the disk is touched; a file that does not exist falls through to
 * the next middleware (the login, logout and API routes live under /admin/ too).
 */

const PREFIX = '/admin/';
export const consoleWebDir = join(repoRoot, 'services', 'console', 'web');

/** URL path under /admin/vendor/ → the node_modules folder it is served from, and the files allowed there. */
const vendors: readonly { prefix: string; dir: string; allowed: RegExp }[] = [
  {
    prefix: 'vendor/leaflet/',
    dir: join(repoRoot, 'node_modules', 'leaflet', 'dist'),
    allowed: /^(leaflet\.js|leaflet\.css|images\/[a-z0-9-]+\.png)$/,
  },
  { prefix: 'vendor/chart.js/', dir: join(repoRoot, 'node_modules', 'chart.js', 'dist'), allowed: /^chart\.umd\.js$/ },
];

function cacheHeaders(res: ServerResponse, path: string): void {
  res.setHeader('Cache-Control', path.endsWith('.html') ? 'no-cache' : 'public, max-age=3600');
}

const staticOptions = { index: 'index.html', hidden: false, gzip: false, brotli: false, setHeaders: cacheHeaders };

/** The path below /admin/, decoded, or null when it is anything but a plain relative path. */
function safeRelative(path: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice(PREFIX.length));
  } catch {
    return null;
  }
  if (/[\\\0]/.test(rel) || rel.startsWith('/')) return null;
  if (rel.split('/').some((segment) => segment.startsWith('.'))) return null;
  return rel;
}

/** Runs a koa-static middleware on `rel` (its path below the static root), then restores the request's path. */
async function serveBelow(mw: Koa.Middleware, rel: string, ctx: Koa.Context, next: Koa.Next): Promise<void> {
  const original = ctx.path;
  let fellThrough = false;
  ctx.path = `/${rel}`;
  try {
    await mw(ctx, async () => {
      fellThrough = true;
    });
  } finally {
    ctx.path = original;
  }
  if (fellThrough) await next();
}

export function serveConsoleFiles(): Koa.Middleware {
  const web = serve(consoleWebDir, staticOptions);
  const vendorServers = vendors.map((v) => ({ ...v, mw: serve(v.dir, { ...staticOptions, index: false }) }));

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/admin') {
      ctx.status = 301;
      ctx.redirect(PREFIX + ctx.search);
      return;
    }
    if (!ctx.path.startsWith(PREFIX) || ctx.path.startsWith(`${PREFIX}api/`)) return next();

    const rel = safeRelative(ctx.path);
    if (rel === null) throw new NotFoundError('no such console file', { details: { path: ctx.path } });

    if (rel.startsWith('vendor/')) {
      const vendor = vendorServers.find((v) => rel.startsWith(v.prefix));
      const file = vendor ? rel.slice(vendor.prefix.length) : '';
      if (!vendor || !vendor.allowed.test(file)) return next();
      return serveBelow(vendor.mw, file, ctx, next);
    }
    return serveBelow(web, rel, ctx, next);
  };
}
