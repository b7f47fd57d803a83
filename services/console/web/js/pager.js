/**
 * The pager under a paged table, the same on every paged page: drawn into the page's `<nav class="pager">`, it
 * moves `state.page` and `state.size` and asks the page to load again; show(answer) draws where the answer is.
 */
import { get } from './api.js';
import { $, h } from './dom.js';

const SIZES = [25, 50, 100, 200];

export function createPager(state, load) {
  let lastPage = 0;
  const prev = h('button', { type: 'button', id: 'prev' }, '← Previous');
  const info = h('span', { id: 'page-info', 'aria-live': 'polite' }, 'page 1 of 1');
  const next = h('button', { type: 'button', id: 'next' }, 'Next →');
  const size = h(
    'select',
    { id: 'size' },
    SIZES.map(String).map((n) => h('option', {}, n)),
  );
  $('nav.pager').replaceChildren(prev, info, next, h('label', {}, 'Rows per page ', size));

  prev.addEventListener('click', () => {
    state.page = Math.max(0, state.page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    state.page = Math.min(lastPage, state.page + 1);
    void load();
  });
  size.value = String(state.size);
  size.addEventListener('change', (e) => {
    state.size = Number(e.target.value);
    state.page = 0;
    void load();
  });
  return {
    /** `answer`: { total, page, size } of the rows shown. */
    show({ total, page, size: pageSize }) {
      lastPage = Math.max(0, Math.ceil(total / pageSize) - 1);
      info.textContent = `page ${page + 1} of ${lastPage + 1}`;
      prev.disabled = page <= 0;
      next.disabled = page >= lastPage;
    },
  };
}

/**
 * A loader of a paged table's rows: asks `path` with the current `state`, marks `table` busy meanwhile, and draws
 * only the latest answer, so that a slow answer to an earlier search cannot replace the rows of a later one.
 */
export function latestAnswerLoader(table, path, state, render) {
  let seq = 0;
  return async () => {
    const mine = ++seq;
    table.setAttribute('aria-busy', 'true');
    try {
      const data = await get(path, state);
      if (mine === seq) render(data);
    } finally {
      if (mine === seq) table.setAttribute('aria-busy', 'false');
    }
  };
}
