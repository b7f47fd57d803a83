import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ENTRIES } from './web-bundle.js';
import { composePage, consoleAssets, consoleWebDir, serveConsoleFiles } from './web-files.js';

/** serveConsoleFiles on a real socket; raw requests so that `..` reaches the server as sent (fetch normalises it). */

let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  // The bundles are built once, here (seconds on a busy machine), not inside the first test's time limit.
  await consoleAssets();
  const app = new Koa();
  app.use(serveConsoleFiles());
  app.use(async (ctx) => {
    if (ctx.path === '/admin/api/me') ctx.body = { reached: 'api' };
  });
  app.silent = true;
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
  close = () => new Promise((r) => server.close(() => r()));
}, 60_000);
afterAll(async () => {
  await close();
});

function get(
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string | undefined>, body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveConsoleFiles', () => {
  it('serves the participants page at /admin/, uncached', async () => {
    const res = await get('/admin/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('data-testid="participants-table"');
  });

  it('redirects /admin to /admin/ so relative links work', async () => {
    const res = await get('/admin');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/admin/');
  });

  it('answers a page again with 304 when the browser holds it (ETag)', async () => {
    const first = await get('/admin/day.html');
    expect(first.status).toBe(200);
    expect(first.headers.etag).toBeTruthy();
    const again = await get('/admin/day.html', 'GET', { 'if-none-match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves each page with one bundled script and versioned assets', async () => {
    // Each page is named after its entry module, but the participants' page, which is the index.
    for (const page of PAGE_ENTRIES.map((entry) => (entry === 'participants' ? 'index' : entry))) {
      const res = await get(`/admin/${page}.html`);
      expect(res.status, page).toBe(200);
      const scripts = [...res.body.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
      const entry = page === 'index' ? 'participants' : page;
      expect(scripts, page).toEqual([
        expect.stringMatching(/^js\/early\.js\?v=[\w-]{16}$/),
        expect.stringMatching(new RegExp(`^js/${entry}\\.js\\?v=[\\w-]{16}$`)),
      ]);
      expect(res.body, page).toMatch(/href="console\.css\?v=[\w-]{16}"/);
      expect(res.body, page).not.toContain('modulepreload');
      // Composed from the layout: one document, every slot filled.
      expect(res.body.match(/<!doctype html>|<head>|<body>|<main\b/g), page).toEqual([
        '<!doctype html>',
        '<head>',
        '<body>',
        '<main',
      ]);
      expect(res.body, page).not.toMatch(/\{\{|data-slot|<!--/);
    }
  });

  it('caches a versioned asset for a year, the same path without its version only with its ETag', async () => {
    const page = (await get('/admin/day.html')).body;
    for (const ref of [...page.matchAll(/(?:src|href)="([^"]+\?v=[^"]+)"/g)].map((m) => m[1]!)) {
      const res = await get(`/admin/${ref}`);
      expect(res.status, ref).toBe(200);
      expect(res.headers['cache-control'], ref).toBe('public, max-age=31536000, immutable');
    }
    expect((await get('/admin/console.css?v=stale')).headers['cache-control']).toBe('no-cache');
    expect((await get('/admin/console.css')).headers['content-type']).toMatch(/text\/css/);
    const bundle = await get('/admin/js/day.js');
    expect(bundle.headers['cache-control']).toBe('no-cache');
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('bundles Leaflet into the day page and the charts into the summary page, nothing bare left', async () => {
    const day = (await get('/admin/js/day.js')).body;
    expect(day).toContain('Leaflet');
    const summary = (await get('/admin/js/summary.js')).body;
    expect(summary).toContain('Chart.js');
    for (const code of [day, summary]) expect(code).not.toMatch(/\bfrom\s*["'](?:\.\/|leaflet|chart)/);
    const js = await get('/admin/js/api.js');
    expect(js.status).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('serves the vendor files from node_modules', async () => {
    expect((await get('/admin/vendor/leaflet/leaflet.css')).status).toBe(200);
    expect((await get('/admin/vendor/leaflet/images/marker-icon.png')).headers['content-type']).toBe('image/png');
    const head = await get('/admin/vendor/leaflet/leaflet.css', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('serves nothing else of those packages', async () => {
    const leaflet = ['leaflet.js', 'leaflet.js.map', 'leaflet-src.js', 'package.json'].map((f) => `leaflet/${f}`);
    for (const file of [...leaflet, 'chart.js/chart.js', 'chart.js/chart.umd.js', 'koa/package.json']) {
      const path = `/admin/vendor/${file}`;
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('refuses path traversal, plain or encoded', async () => {
    for (const path of [
      '/admin/../package.json',
      '/admin/%2e%2e/package.json',
      '/admin/%2E%2E%2Fpackage.json',
      '/admin/..%2f..%2fpackage.json',
      '/admin/js/../../../package.json',
      '/admin/..%5c..%5cpackage.json',
      '/admin/vendor/leaflet/../../../package.json',
      '/admin/vendor/leaflet/images/..%2f..%2fpackage.json',
      '/admin/vendor/chart.js/%2e%2e/package.json',
      '/admin/%00index.html',
      '/admin/%E0%A4%A',
      '/admin/.git/config',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('"name"');
    }
  });

  it('serves no HTML but the composed pages: neither the layout nor a page as written', async () => {
    expect((await get('/admin/layout.html')).status).toBe(404);
    const day = await get('/admin/day.html');
    expect(day.body).toContain('<title>Day · Itinera console</title>');
    expect(day.body).toMatch(/<script src="js\/early\.js\?v=[\w-]{16}" data-api="users\/\{user\}\/days\/\{date\}">/);
  });

  it('answers 404 for an unknown file and lets other /admin/ routes through', async () => {
    expect((await get('/admin/nothing-here.html')).status).toBe(404);
    expect((await get('/admin/js/nothing.js')).status).toBe(404);
    expect((await get('/package.json')).status).toBe(404);
    const api = await get('/admin/api/me');
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body)).toEqual({ reached: 'api' });
    expect((await get('/admin/index.html', 'POST')).status).toBe(404);
  });
});

describe('composePage', () => {
  const layout = readFileSync(join(consoleWebDir, 'layout.html'), 'utf8');
  const page = [
    '<template data-slot="title">Sample</template>',
    '<template data-slot="api">sample?x={x=1}</template>',
    '<template data-slot="head"><script type="module" src="js/sample.js"></script></template>',
    '<main>',
    '  <h1>Sample</h1>',
    '</main>',
  ].join('\n');

  it("puts the page's own title, early reads, script and body into the one frame of the layout", () => {
    const html = composePage(layout, page, 'sample.html');
    expect(html.match(/<head>/g)).toHaveLength(1);
    expect(html.match(/<title>[^<]*<\/title>/g)).toEqual(['<title>Sample · Itinera console</title>']);
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="js/early.js" data-api="sample?x={x=1}">',
      '<script type="module" src="js/sample.js">',
    ]);
    // The body is indented where its slot stands, so the page served reads as one document.
    expect(html).toContain('<body>\n    <main>\n      <h1>Sample</h1>\n    </main>\n  </body>');
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('fills a slot with nothing from an empty template', () => {
    const html = composePage(layout, page.replace('sample?x={x=1}', ''), 'sample.html');
    expect(html).toContain('<script src="js/early.js" data-api=""></script>');
  });

  it('refuses, at load, a page that leaves a slot unfilled, fills one twice or fills one the layout lacks', () => {
    const withoutTitle = page.replace(/^.*"title".*\n/, '');
    expect(() => composePage(layout, withoutTitle, 'sample.html')).toThrow(/sample\.html does not fill the slot title/);
    const withoutBody = page.replace(/<main>[\s\S]*/, '');
    expect(() => composePage(layout, withoutBody, 'sample.html')).toThrow(/does not fill the slot body/);
    const twice = `${page}\n<template data-slot="title">Again</template>`;
    expect(() => composePage(layout, twice, 'sample.html')).toThrow(/fills the slot title twice/);
    const unknown = `<template data-slot="footer">x</template>\n${page}`;
    expect(() => composePage(layout, unknown, 'sample.html')).toThrow(/fills footer, which layout\.html does not have/);
  });
});
