import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Koa from 'koa';
import serve from 'koa-static';
import { repoRoot } from '../../shared/config/repo-root.js';
import { ConfigError, NotFoundError } from '../../shared/errors/index.js';
import { contentHash, loadWebBundles } from './web-bundle.js';

/**
 * The console's browser pages (services/console/web/) under /admin/, and the few vendor files they load
 * (Leaflet's stylesheet and its images) under /admin/vendor/. The HTML, CSS and vendor files are read from the source
 * tree and node_modules at the repository root: tsc copies no HTML, CSS or browser JS into dist/, so the compiled
 * service finds them there too. Each page's script, js/<page>.js, is served as one bundle (web-bundle.ts).
 *
 * Each page file holds only what is its own (title, early API reads, entry script, body); web/layout.html holds the
 * frame they share, and composePage puts the two together once, at load.
 *
 * The pages, the bundles and every file a page names are held in memory (consoleAssets, loaded once). A page names
 * its assets with a content version (`console.css?v=<hash>`), so those are cached for a year and not asked again
 * until they change; the pages themselves are `no-cache` with an ETag (a reload costs a 304). An edit of web/
 * shows after a restart of the console.
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
    allowed: /^(leaflet\.css|images\/[a-z0-9-]+\.png)$/,
  },
];

const YEAR = 'public, max-age=31536000, immutable';
/** Files no page names (the unbundled modules, Leaflet's images): an hour. */
const HOUR = 'public, max-age=3600';

interface InMemoryFile {
  body: Buffer;
  type: string;
  etag: string;
}

export interface ConsoleAssets {
  /** 'index.html', 'day.html', … with their assets' URLs versioned. */
  pages: Map<string, InMemoryFile>;
  /** 'js/day.js', … : the pages' bundles; 'console.css', 'js/early.js', … : the other files a page names. */
  files: Map<string, InMemoryFile>;
}

/** The file a path below /admin/ names on disk, or undefined when it is not one we serve. */
function diskPath(rel: string): string | undefined {
  if (!rel.startsWith('vendor/')) return join(consoleWebDir, rel);
  const vendor = vendors.find((v) => rel.startsWith(v.prefix));
  const file = vendor ? rel.slice(vendor.prefix.length) : '';
  return vendor && vendor.allowed.test(file) ? join(vendor.dir, file) : undefined;
}

const TYPES: Record<string, string> = {
  js: 'application/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};
const ASSET_REF = /(\s(?:src|href)=")([a-z0-9][a-z0-9/._-]*\.(js|css|svg|png))"/gi;

/**
 * Appends `?v=<content hash>` to each src/href of a page that names one of its assets (.js, .css, .svg, .png), and
 * keeps each such asset in `files`.
 */
async function versionAssets(html: string, files: Map<string, InMemoryFile>): Promise<string> {
  for (const [, , ref, ext] of html.matchAll(ASSET_REF)) {
    if (files.has(ref!)) continue;
    const path = diskPath(ref!);
    if (path === undefined) continue;
    const body = await readFile(path);
    files.set(ref!, { body, type: TYPES[ext!.toLowerCase()]!, etag: contentHash(body) });
  }
  return html.replace(ASSET_REF, (all, head: string, ref: string) => {
    const file = files.get(ref);
    return file === undefined ? all : `${head}${ref}?v=${file.etag}"`;
  });
}

const LAYOUT = 'layout.html';
const SLOT = /\{\{([\w-]+)\}\}/g;
const SLOT_VALUE = /<template data-slot="([\w-]+)">([\s\S]*?)<\/template>/g;
/** The layout's comments are for whoever edits it, not for the browser. */
const COMMENT = /<!--[\s\S]*?-->\n?/g;

/** The text without its surrounding blank lines and without the indentation all its lines share. */
function dedent(text: string): string {
  const lines = text.replace(/^\s*\n|\s+$/g, '').split('\n');
  const shared = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(shared)).join('\n');
}

/**
 * A page as served: the layout with each `{{slot}}` filled from the page file, whose `<template data-slot="name">`
 * elements fill the named slots and whose rest fills `{{body}}`; a value spanning lines is indented where its slot
 * stands. A slot left unfilled (an empty template fills it with nothing) or one the layout does not have stops the
 * console at start: a page without its script or its title would otherwise be served.
 */
export function composePage(layout: string, page: string, pageName: string): string {
  const values = new Map<string, string>();
  const fill = (slot: string, value: string): void => {
    if (values.has(slot)) throw new ConfigError(`console page ${pageName} fills the slot ${slot} twice`);
    values.set(slot, dedent(value));
  };
  const rest = page.replace(SLOT_VALUE, (_, slot: string, value: string) => {
    fill(slot, value);
    return '';
  });
  if (rest.trim() !== '') fill('body', rest);

  const filled = new Set<string>();
  const html = layout
    .replace(COMMENT, '')
    .split('\n')
    .map((line) => {
      const indent = /^ */.exec(line)![0];
      return line.replace(SLOT, (_, slot: string) => {
        const value = values.get(slot);
        if (value === undefined) throw new ConfigError(`console page ${pageName} does not fill the slot ${slot}`);
        filled.add(slot);
        return value
          .split('\n')
          .map((l, i) => (i === 0 || l === '' ? l : indent + l))
          .join('\n');
      });
    })
    .join('\n');
  const unknown = [...values.keys()].filter((slot) => !filled.has(slot));
  if (unknown.length > 0)
    throw new ConfigError(`console page ${pageName} fills ${unknown.join(', ')}, which ${LAYOUT} does not have`);
  return html;
}

async function loadConsoleAssets(): Promise<ConsoleAssets> {
  const files = new Map<string, InMemoryFile>();
  for (const b of await loadWebBundles()) files.set(b.path, { body: b.code, type: TYPES['js']!, etag: b.hash });
  const layout = await readFile(join(consoleWebDir, LAYOUT), 'utf8');
  const pages = new Map<string, InMemoryFile>();
  for (const name of (await readdir(consoleWebDir)).filter((n) => n.endsWith('.html') && n !== LAYOUT)) {
    const page = composePage(layout, await readFile(join(consoleWebDir, name), 'utf8'), name);
    const html = await versionAssets(page, files);
    const body = Buffer.from(html);
    pages.set(name, { body, type: 'text/html; charset=utf-8', etag: contentHash(body) });
  }
  return { pages, files };
}

let loaded: Promise<ConsoleAssets> | undefined;

/**
 * The pages and bundles, loaded once per process (bundled now under tsx, read from the build when compiled).
 * The console's main awaits it before listening, so a missing build stops it at start.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  loaded ??= loadConsoleAssets();
  return loaded;
}

/** Answers an in-memory file: 304 when the browser holds this version already. */
function answer(ctx: Koa.Context, file: InMemoryFile, cacheControl: string): void {
  ctx.status = 200;
  ctx.type = file.type;
  ctx.etag = file.etag;
  ctx.set('Cache-Control', cacheControl);
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = file.body;
}

const staticOptions = { index: 'index.html', hidden: false, gzip: false, brotli: false };

/** The path below /admin/, decoded, or null when it is anything but a plain relative path. */
function safeRelative(path: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice(PREFIX.length));
  } catch {
    return null;
  }
  // No file served here has a % in its name: one left after decoding is a path encoded twice (%252e%252e), which
  // the static server would decode again into `..`.
  if (/[\\\0%]/.test(rel) || rel.startsWith('/')) return null;
  if (rel.split('/').some((segment) => segment.startsWith('.'))) return null;
  return rel;
}

/**
 * Runs a koa-static middleware on `rel` (its path below the static root), then restores the request's path;
 * answers whether it served the file (false: it went on to `next`).
 */
async function serveBelow(mw: Koa.Middleware, rel: string, ctx: Koa.Context, next: Koa.Next): Promise<boolean> {
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
  return !fellThrough;
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

    const assets = await consoleAssets();
    const page = assets.pages.get(rel === '' ? 'index.html' : rel);
    if (page) return answer(ctx, page, 'no-cache');
    // HTML is served composed or not at all: the layout and a page's source are no pages.
    if (rel.endsWith('.html')) return next();
    const file = assets.files.get(rel);
    // Asked for with its current version: a year. Without (an old page, or by hand): the browser checks its ETag.
    if (file) return answer(ctx, file, ctx.query['v'] === file.etag ? YEAR : 'no-cache');

    let served: boolean;
    if (rel.startsWith('vendor/')) {
      const vendor = vendorServers.find((v) => rel.startsWith(v.prefix));
      const below = vendor ? rel.slice(vendor.prefix.length) : '';
      if (!vendor || !vendor.allowed.test(below)) return next();
      served = await serveBelow(vendor.mw, below, ctx, next);
    } else served = await serveBelow(web, rel, ctx, next);
    if (served) ctx.set('Cache-Control', HOUR);
  };
}
