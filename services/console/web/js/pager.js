/**
 * The pager under a paged table (#prev, #next, #page-info, #size), the same on every paged page: it moves
 * `state.page` and `state.size` and asks the page to load again; show(answer) draws where the answer is.
 */
import { $ } from './dom.js';

export function createPager(state, load) {
  let lastPage = 0;
  $('#prev').addEventListener('click', () => {
    state.page = Math.max(0, state.page - 1);
    void load();
  });
  $('#next').addEventListener('click', () => {
    state.page = Math.min(lastPage, state.page + 1);
    void load();
  });
  $('#size').value = String(state.size);
  $('#size').addEventListener('change', (e) => {
    state.size = Number(e.target.value);
    state.page = 0;
    void load();
  });
  return {
    /** `answer`: { total, page, size } of the rows shown. */
    show({ total, page, size }) {
      lastPage = Math.max(0, Math.ceil(total / size) - 1);
      $('#page-info').textContent = `page ${page + 1} of ${lastPage + 1}`;
      $('#prev').disabled = page <= 0;
      $('#next').disabled = page >= lastPage;
    },
  };
}
