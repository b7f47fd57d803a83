const DEFAULT_RETURN_PATH = '/admin/';
/** Any fixed origin does: only the path and query of `next` are kept, and only if it stayed on that origin. */
const SAME_ORIGIN = 'http://console.invalid';

/**
 * Where /admin/login sends the browser once logged in: `next` when it is a console page (a path under /admin/,
 * query kept), else /admin/. Anything that would leave the console (`//evil.example`, `https://…`, `/\evil`,
 * `/admin/../x`) falls back, so the login cannot be used as an open redirect; so do the login's own paths, which
 * would loop.
 */
export function safeReturnPath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/')) return DEFAULT_RETURN_PATH;
  if (!URL.canParse(next, SAME_ORIGIN)) return DEFAULT_RETURN_PATH;
  const url = new URL(next, SAME_ORIGIN);
  if (url.origin !== SAME_ORIGIN || !url.pathname.startsWith('/admin/')) return DEFAULT_RETURN_PATH;
  if (url.pathname === '/admin/login' || url.pathname === '/admin/callback') return DEFAULT_RETURN_PATH;
  return `${url.pathname}${url.search}`;
}
