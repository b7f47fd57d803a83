/**
 * Radar: participants whose phones stopped collecting, one row per participant and rule, from the server's
 * participant index (no table is read per view). Filtered by rule, paged by the server; state lives in the URL.
 */
import { $, debounce, emptyRow, fmtLocal, fmtTs, frameTable, h, int, localDate, markReady, row } from './dom.js';
import { initNav } from './nav.js';
import { createPager, latestAnswerLoader } from './pager.js';

const RULES = {
  silent: { label: 'Silent', help: 'no push for the hours set (or none since registering)' },
  no_locations: { label: 'No locations', help: 'sends other data but no location for the hours set' },
  tracking_off: { label: 'Tracking off', help: "the phone's last state change turned tracking off" },
  not_labelling: {
    label: 'Not labelling',
    help: 'trips for the hours set since the last label, survey answer or note',
  },
  outdated_app: { label: 'Outdated app', help: 'an app version older than the newest in the program' },
};
const DEFAULTS = { rule: '', hours: 48, page: 0, size: 50, dir: 'asc', subgroup: '' };

/** A whole number from the URL within [min, max], else the default: a hand-edited URL still opens a page. */
function bounded(value, min, max, fallback) {
  const n = Number(value);
  return value !== null && Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

const params = new URLSearchParams(location.search);
// Keys in the order of early.js's template (radar.html), so the page asks for the very URL it fetched early.
const state = {
  rule: Object.hasOwn(RULES, params.get('rule') ?? '') ? params.get('rule') : DEFAULTS.rule,
  hours: bounded(params.get('hours'), 1, 8760, DEFAULTS.hours),
  page: bounded(params.get('page'), 0, 1_000_000, DEFAULTS.page),
  size: bounded(params.get('size'), 1, 200, DEFAULTS.size),
  dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
  subgroup: (params.get('subgroup') ?? '').slice(0, 64),
};
const table = frameTable($('[data-testid="radar-table"]'), [
  'Token',
  'Program',
  'Rule',
  { label: 'Since', sort: 'since' },
  'Last push',
  'Last location',
  { label: 'Last trip', title: 'Where the trip happened, with its UTC offset' },
]);
// `load` is hoisted: the pager asks for another page through it.
const pager = createPager(state, load);
const loadRows = latestAnswerLoader(table, 'radar', state, render);
// A button per rule after "All", each with its count: the rules are declared once, above.
$('.segmented').append(
  ...Object.entries(RULES).map(([rule, { label }]) =>
    h(
      'button',
      { type: 'button', 'data-rule': rule, 'aria-pressed': 'false' },
      `${label} `,
      h('span', { class: 'count', 'data-testid': `radar-count-${rule}` }, '…'),
    ),
  ),
);
const filters = [...document.querySelectorAll('.segmented button[data-rule]')];

function syncUrl() {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) if (value !== DEFAULTS[key]) q.set(key, String(value));
  history.replaceState(null, '', `${location.pathname}${q.size ? `?${q}` : ''}`);
}

/** Seconds → "3 d 4 h", "5 h 12 min", "7 min": how long a condition has lasted, to the unit that matters. */
function lasting(seconds) {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  if (minutes === 0) return '< 1 min';
  const [days, hours, mins] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  if (days > 0) return `${days} d ${hours} h`;
  return hours > 0 ? `${hours} h ${mins} min` : `${mins} min`;
}

/**
 * The token links to the participant's last day with a trip (its local date where the trip happened, the day the
 * day page counts), else to the day the condition began, in this browser's zone.
 */
function tokenCell(r) {
  const date = r.lastTripLocal ? r.lastTripLocal.slice(0, 10) : localDate(r.since);
  return h(
    'span',
    { title: r.userId },
    h('a', { href: `day.html?user=${r.userId}&date=${date}` }, h('code', {}, r.token)),
  );
}

function sinceCell(since, now) {
  return h('span', {}, fmtTs(since), ' ', h('span', { class: 'muted' }, `for ${lasting(now - since)}`));
}

function emptyText(rule, hours) {
  switch (rule) {
    case 'silent':
      return `No phone has been silent for ${hours} h.`;
    case 'no_locations':
      return `No phone has sent data without locations for ${hours} h.`;
    case 'tracking_off':
      return 'No phone says its tracking is off.';
    case 'not_labelling':
      return `No participant has travelled ${hours} h past their last label.`;
    case 'outdated_app':
      return 'Every phone runs the newest app version seen in its program.';
    default:
      return `Nothing on the radar: no phone silent or without locations for ${hours} h, none with tracking off, unlabelled trips or an outdated app.`;
  }
}

function showFilters() {
  for (const button of filters) button.setAttribute('aria-pressed', String(button.dataset.rule === state.rule));
}

function render(data) {
  const now = Date.now() / 1000;
  pager.show(data);
  const all = Object.keys(RULES).reduce((sum, rule) => sum + (data.counts[rule] ?? 0), 0);
  $('[data-testid="radar-count-all"]').textContent = int(all);
  for (const rule of Object.keys(RULES)) $(`[data-testid="radar-count-${rule}"]`).textContent = int(data.counts[rule]);
  $('#as-of').textContent = fmtTs(data.asOf);
  showFilters();
  const rows = data.rows.map((r) =>
    row(
      [
        tokenCell(r),
        r.program ?? '—',
        h('span', { title: RULES[r.rule]?.help }, RULES[r.rule]?.label ?? r.rule),
        sinceCell(r.since, now),
        fmtTs(r.lastPush),
        fmtTs(r.lastLocation),
        r.lastTripLocal ? fmtLocal(r.lastTripLocal) : fmtTs(r.lastTrip),
      ],
      { 'data-testid': 'radar-row', 'data-user-id': r.userId, 'data-rule': r.rule },
    ),
  );
  table.tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(7, emptyText(state.rule, data.hours))]));
  const since = table.tHead.querySelector('th[data-sort="since"]');
  since.setAttribute('aria-sort', state.dir === 'asc' ? 'ascending' : 'descending');
}

function load() {
  syncUrl();
  return loadRows();
}

for (const button of filters) {
  button.addEventListener('click', () => {
    state.rule = button.dataset.rule;
    state.page = 0;
    showFilters();
    void load();
  });
}

const hours = $('#hours');
hours.value = String(state.hours);
// Typing "120" passes through "1" and "12": wait for a pause, and ask nothing while the field is invalid.
const hoursNow = debounce(() => {
  if (!hours.checkValidity() || hours.value === '') return;
  const value = Number(hours.value);
  if (value === state.hours) return;
  state.hours = value;
  state.page = 0;
  void load();
}, 400);
hours.addEventListener('input', hoursNow);

const subgroup = $('#subgroup');
subgroup.value = state.subgroup;
subgroup.addEventListener(
  'input',
  debounce(() => {
    if (subgroup.value.trim() === state.subgroup) return;
    state.subgroup = subgroup.value.trim();
    state.page = 0;
    void load();
  }, 400),
);

table.tHead.querySelector('th[data-sort="since"] button').addEventListener('click', () => {
  state.dir = state.dir === 'asc' ? 'desc' : 'asc';
  state.page = 0;
  void load();
});

showFilters();
void Promise.all([initNav(), load()]).then(markReady);
