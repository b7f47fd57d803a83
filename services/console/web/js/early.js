/*
 * A classic script, first in every page's <head> (before the stylesheets, which would hold it back): it starts the
 * page's first API reads (who is signed in, and the page's data named by `data-api`) while the page's module still
 * loads, so the page does not wait for its module and then for its data. `data-api` holds space-separated path
 * templates: `{name}` is the page's query parameter `name` (the URL is skipped when it is missing), `{name=x}` the
 * same with a default; a query parameter left empty is dropped, as api.js's apiUrl drops it, so both spell a URL
 * the same way. api.js takes each response by its exact URL; one the page never asks for is dropped.
 */
(() => {
  const params = new URLSearchParams(location.search);
  const urls = ['/admin/api/me'];
  const fill = (text, encode) => {
    let complete = true;
    const filled = text.replace(/\{(\w+)(?:=([^}]*))?\}/g, (_, name, fallback) => {
      const value = params.get(name) || fallback;
      if (value === undefined) complete = false;
      return encode(value ?? '');
    });
    return complete ? filled : undefined;
  };
  for (const template of (document.currentScript?.dataset.api ?? '').split(' ').filter(Boolean)) {
    const [pathTemplate, queryTemplate = ''] = template.split('?');
    const path = fill(pathTemplate, encodeURIComponent);
    const search = new URLSearchParams();
    let complete = path !== undefined;
    for (const pair of queryTemplate.split('&').filter(Boolean)) {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      const value = fill(eq < 0 ? '' : pair.slice(eq + 1), (v) => v);
      if (value === undefined) complete = false;
      else if (value !== '') search.set(key, value);
    }
    if (complete) urls.push(`/admin/api/${path}${search.size ? `?${search}` : ''}`);
  }
  const early = new Map();
  for (const url of urls)
    early.set(url, fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' }));
  window.itineraEarly = early;
})();
