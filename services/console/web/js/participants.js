/** Participants: one row per user, sorted, searched and paged by the server. State lives in the URL. */
import { me, post } from './api.js';
import { initNav } from './nav.js';
import { createPager, latestAnswerLoader } from './pager.js';
import { $, debounce, dec, emptyRow, fmtLocal, fmtTs, frameTable, h, int, localDate, markReady, row } from './dom.js';

const params = new URLSearchParams(location.search);
const state = {
  page: Number(params.get('page') ?? 0) || 0,
  size: Number(params.get('size') ?? 50) || 50,
  sort: params.get('sort') ?? 'lastPush',
  dir: params.get('dir') === 'asc' ? 'asc' : 'desc',
  q: params.get('q') ?? '',
};
const table = frameTable($('[data-testid="participants-table"]'), [
  { label: 'Token', sort: 'token' },
  'Program',
  { label: 'Created', sort: 'created' },
  { label: 'First push', sort: 'firstPush' },
  { label: 'Last push', sort: 'lastPush' },
  { label: 'Last trip', sort: 'lastTrip', title: 'Where the trip happened, with its UTC offset' },
  { label: 'Trips', sort: 'trips', class: 'num' },
  { label: '% labelled', sort: 'labelledPct', class: 'num' },
  { label: 'Errors', sort: 'errors', class: 'num' },
  'Platform',
  'App version',
]);
// `load` is hoisted: the pager asks for another page through it.
const pager = createPager(state, load);
const loadRows = latestAnswerLoader(table, 'participants', state, render);
let operator = false;

function syncUrl() {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) if (value !== '' && value !== 0) q.set(key, String(value));
  history.replaceState(null, '', `${location.pathname}${q.size ? `?${q}` : ''}`);
}

/**
 * The day the token links to: the last trip's local date where the trip happened (the day page counts the
 * participant's local days), else the last push's date in the browser's zone, else none.
 */
function linkedDate(p) {
  if (p.lastTripLocal) return p.lastTripLocal.slice(0, 10);
  const when = p.lastTrip ?? p.lastPush;
  return when === null ? null : localDate(when);
}

function tokenCell(p) {
  const date = linkedDate(p);
  const token = h('code', {}, p.token);
  const link = date === null ? token : h('a', { href: `day.html?user=${p.userId}&date=${date}` }, token);
  const reveal = operator
    ? h('button', { type: 'button', class: 'link', 'aria-label': `Reveal the token of ${p.userId}` }, 'reveal')
    : null;
  reveal?.addEventListener('click', async () => {
    reveal.disabled = true;
    const { token: full } = await post(`participants/${p.userId}/reveal-token`).finally(
      () => (reveal.disabled = false),
    );
    token.textContent = full;
    reveal.remove();
  });
  return [h('span', { title: p.userId }, link, ' ', reveal), ''];
}

function render(data) {
  pager.show(data);
  $('[data-testid="participants-total"]').textContent = String(data.total);
  $('#as-of').textContent = fmtTs(data.asOf);
  const rows = data.rows.map((p) =>
    row(
      [
        tokenCell(p),
        p.program ?? '—',
        fmtTs(p.created),
        fmtTs(p.firstPush),
        fmtTs(p.lastPush),
        p.lastTripLocal ? fmtLocal(p.lastTripLocal) : fmtTs(p.lastTrip),
        [int(p.trips), 'num'],
        [p.labelledPct === null ? '—' : `${dec(p.labelledPct)} %`, 'num'],
        [int(p.errors), p.errors > 0 ? 'num bad' : 'num'],
        p.platform ?? '—',
        p.appVersion ?? '—',
      ],
      { 'data-testid': 'participant-row', 'data-user-id': p.userId },
    ),
  );
  const empty = state.q ? `No participant matches “${state.q}”.` : 'No participants yet.';
  table.tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(11, empty)]));
  for (const th of table.tHead.querySelectorAll('th[data-sort]')) {
    const active = th.dataset.sort === state.sort;
    th.setAttribute('aria-sort', active ? (state.dir === 'asc' ? 'ascending' : 'descending') : 'none');
  }
}

function load() {
  syncUrl();
  return loadRows();
}

for (const th of table.tHead.querySelectorAll('th[data-sort]')) {
  th.querySelector('button').addEventListener('click', () => {
    const key = th.dataset.sort;
    if (state.sort === key) state.dir = state.dir === 'asc' ? 'desc' : 'asc';
    else [state.sort, state.dir] = [key, key === 'token' ? 'asc' : 'desc'];
    state.page = 0;
    void load();
  });
}

const search = $('[data-testid="search"]');
search.value = state.q;
const searchNow = debounce(() => {
  state.q = search.value.trim();
  state.page = 0;
  void load();
}, 300);
search.addEventListener('input', searchNow);

// The page's data and /me are asked at once; the rows need the role (reveal buttons), so they wait for both.
void Promise.all([initNav(), me()])
  .then(([, who]) => {
    operator = who.role === 'operator';
    return load();
  })
  .then(markReady);
