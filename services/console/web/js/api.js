/**
 * The console's fetch wrapper: JSON in and out, the CSRF header on every state-changing request, a 401 sends the
 * browser to the login page (and comes back here afterwards), any other error is shown in the error banner.
 */
import { h } from './dom.js';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let mePromise;

/** The signed-in user: { email, role, csrfToken, tileUrl }, asked once per page. */
export function me() {
  mePromise ??= get('me');
  return mePromise;
}

export const isOperator = async () => (await me()).role === 'operator';

function loginUrl() {
  return `/admin/login?next=${encodeURIComponent(location.pathname + location.search)}`;
}

/** The error banner at the top of <main>, made on first use. */
function banner() {
  let node = document.querySelector('[data-testid="error-banner"]');
  if (node) return node;
  node = h(
    'div',
    { class: 'banner', role: 'alert', 'data-testid': 'error-banner', hidden: true },
    h('span', { class: 'msg' }),
    h('button', { type: 'button', 'aria-label': 'Dismiss the error', onclick: () => clearError() }, '×'),
  );
  const main = document.querySelector('main') ?? document.body;
  main.prepend(node);
  return node;
}

export function showError(message) {
  const node = banner();
  const time = new Date().toTimeString().slice(0, 8);
  node.querySelector('.msg').textContent = `${time} ${message}`;
  node.hidden = false;
}

export function clearError() {
  const node = document.querySelector('[data-testid="error-banner"]');
  if (node) node.hidden = true;
}

/** The response early.js already asked for, once: later reads of the URL go to the server again. */
function takeEarly(method, url) {
  const early = method === 'GET' ? window.itineraEarly?.get(url) : undefined;
  if (early) window.itineraEarly.delete(url);
  return early;
}

/** Any method and URL; resolves with the parsed JSON (null when empty). Never resolves on a 401: the page is leaving. */
export async function request(method, url, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') {
    headers['x-csrf-token'] = (await me()).csrfToken;
    if (body !== undefined) headers['content-type'] = 'application/json';
  }
  let res;
  try {
    res = await (takeEarly(method, url) ??
      fetch(url, {
        method,
        headers,
        credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      }));
  } catch (err) {
    showError(`${method} ${url}: the server cannot be reached (${err.message})`);
    throw new ApiError(0, 'NETWORK', err.message);
  }
  if (res.status === 401) {
    location.assign(loginUrl());
    return new Promise(() => {});
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const code = data?.error?.code ?? `HTTP_${res.status}`;
    const message = data?.error?.message ?? `${res.status} ${res.statusText}`;
    showError(`${message} (${code}, ${method} ${url.split('?')[0]})`);
    throw new ApiError(res.status, code, message);
  }
  return data;
}

/** /admin/api/<path>?<params>; parameters that are null, undefined or '' are left out. */
export function apiUrl(path, params = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  }
  const query = search.toString();
  return `/admin/api/${path}${query ? `?${query}` : ''}`;
}

export const get = (path, params) => request('GET', apiUrl(path, params));
export const post = (path, body = {}) => request('POST', apiUrl(path), body);

// A bug or a failed request nobody awaited still shows, instead of failing silently in the console.
window.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof ApiError)
    event.preventDefault(); // already in the banner
  else showError(`Unexpected error: ${event.reason?.message ?? event.reason}`);
});
