/**
 * The console's Content-Security-Policy directives (helmet's camelCase names). Scripts only from the console
 * itself, no inline script; styles from the console plus inline ones, because Leaflet positions tiles and markers
 * with style attributes; images from the console, data: URLs (Leaflet, Chart.js) and the tile server; fetches
 * only to the console's own API. `upgrade-insecure-requests` only over https: on http://127.0.0.1 it would send
 * the page's own requests to an https port nobody listens on.
 */
export function consoleCspDirectives({
  tileUrl,
  https,
}: {
  tileUrl: string;
  https: boolean;
}): Record<string, string[]> {
  const tiles = tileSource(tileUrl);
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', ...(tiles === undefined ? [] : [tiles])],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    ...(https ? { upgradeInsecureRequests: [] } : {}),
  };
}

/**
 * The CSP source for a Leaflet tile URL template (`https://{s}.tile.example.org/{z}/{x}/{y}.png`): its origin,
 * with a `{s}`-style placeholder in the first host label as CSP's `*.` wildcard. A placeholder anywhere else
 * in the host cannot be said in CSP, so the whole scheme is allowed then. Undefined when there are no tiles.
 */
export function tileSource(tileUrl: string): string | undefined {
  const match = /^(https?):\/\/([^/?#]+)/i.exec(tileUrl.trim());
  if (!match) return undefined;
  const scheme = match[1]!.toLowerCase();
  const [first = '', ...rest] = match[2]!.toLowerCase().split('.');
  const placeholder = /\{[^}]*\}/;
  if (rest.some((label) => placeholder.test(label))) return `${scheme}:`;
  const host = placeholder.test(first) ? ['*', ...rest].join('.') : [first, ...rest].join('.');
  return `${scheme}://${host}`;
}
