/*
 * A classic script, run as soon as the <head> reaches it: it starts the page's first API reads (who is signed in, and
 * the page's data named by `data-api`, a path template filled from the page's query) while the modules still load,
 * so the page does not wait for its modules and then for its data. api.js takes each response by its URL; one the
 * page never asks for is dropped.
 */
(() => {
  const params = new URLSearchParams(location.search);
  const urls = ['/admin/api/me'];
  for (const template of (document.currentScript?.dataset.api ?? '').split(' ').filter(Boolean)) {
    let complete = true;
    const path = template.replace(/\{(\w+)\}/g, (_, name) => {
      const value = params.get(name);
      if (!value) complete = false;
      return encodeURIComponent(value ?? '');
    });
    if (complete) urls.push(`/admin/api/${path}`);
  }
  const early = new Map();
  for (const url of urls)
    early.set(url, fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' }));
  window.itineraEarly = early;
})();
