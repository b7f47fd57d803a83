/** Small DOM and formatting helpers shared by every page. No framework: elements are built with h(). */

/**
 * h('td', { class: 'num', 'data-testid': 'x', onclick: fn }, 'text', child) → an element. Attributes whose value is
 * null, undefined or false are left out; true gives an empty attribute; children may be strings, nodes or arrays.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);

export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

const pad = (n) => String(n).padStart(2, '0');

/** Unix seconds → the browser's local date, YYYY-MM-DD. */
export function localDate(ts) {
  const d = new Date(ts * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Unix seconds → "YYYY-MM-DD HH:MM:SS" in the browser's local time; null → "—". */
export function fmtTs(ts) {
  if (ts === null || ts === undefined) return '—';
  const d = new Date(ts * 1000);
  return `${localDate(ts)} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * "2016-08-27T08:15:03-07:00" → "2016-08-27 08:15:03 (UTC−07:00)": a time as it was where it happened, with the
 * offset said, since the operator's own zone may be another; anything else → "—".
 */
export function fmtLocal(fmtTime) {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(fmtTime ?? '');
  if (!match) return '—';
  const offset = match[3] === 'Z' ? '+00:00' : match[3];
  return `${match[1]} ${match[2]} (UTC${offset.replace('-', '−')})`;
}

/** "2016-08-27T08:15:03-07:00" → "08:15": the wall-clock time where the trip happened. */
export function hhmm(fmtTime) {
  const match = /T(\d{2}:\d{2})/.exec(fmtTime ?? '');
  return match ? match[1] : '—';
}

/** Unix seconds → "HH:MM" in an IANA time zone (the day's), or the browser's when there is none. */
export function hhmmIn(ts, timeZone) {
  const options = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  try {
    return new Date(ts * 1000).toLocaleTimeString('en-GB', timeZone ? { ...options, timeZone } : options);
  } catch {
    return new Date(ts * 1000).toLocaleTimeString('en-GB', options);
  }
}

/** Seconds ago, said briefly: "42 s", "7 min", "3 h", "2 d". */
export function age(ts, now = Date.now() / 1000) {
  const s = Math.max(0, Math.round(now - ts));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** Metres → "0.42 km" / "12.3 km". */
export function km(metres) {
  const k = (metres ?? 0) / 1000;
  return `${k.toFixed(k < 10 ? 2 : 1)} km`;
}

/** Seconds → "25 min" / "1 h 05". */
export function duration(seconds) {
  const min = Math.round((seconds ?? 0) / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${pad(min % 60)}`;
}

const intFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export const int = (n) => (n === null || n === undefined ? '—' : intFormat.format(n));
export const dec = (n) => (n === null || n === undefined ? '—' : decFormat.format(n));

/** A table row of cells; a cell is a value or [value, className]. */
export function row(cells, attrs = {}) {
  return h(
    'tr',
    attrs,
    cells.map((cell) => (Array.isArray(cell) ? h('td', { class: cell[1] }, cell[0]) : h('td', {}, cell))),
  );
}

/**
 * A table's head row. A column is its label, [label, className] as a cell of row() is, or { label, sort, ...attrs }:
 * `sort` makes the label a button and names the column's key (data-sort); the other attributes go on the `th`.
 */
export function tableHead(columns) {
  const th = (column) => {
    const { label, sort, ...attrs } =
      typeof column === 'string'
        ? { label: column }
        : Array.isArray(column)
          ? { label: column[0], class: column[1] }
          : column;
    return h(
      'th',
      { scope: 'col', 'data-sort': sort, ...attrs },
      sort ? h('button', { type: 'button' }, label) : label,
    );
  };
  return h('thead', {}, h('tr', {}, columns.map(th)));
}

/**
 * Gives one of the page's `<table class="data">` its head and an empty body for the rows (before its foot, when the
 * page wrote one): the page names the columns where it draws the rows, and the markup of a table is written once.
 */
export function frameTable(table, columns) {
  table.prepend(tableHead(columns), h('tbody'));
  return table;
}

/** JSON text indented for reading; anything else as it is. */
export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A single full-width "nothing here" row. */
export function emptyRow(columns, text) {
  return h('tr', {}, h('td', { class: 'empty', colspan: columns }, text));
}

/**
 * Marks the page as showing its first data (`<body data-ready>`), what tests and the benchmark wait for, with the
 * milliseconds since the navigation started (`data-ready-ms`, the browser's own clock): the page's load time.
 */
export function markReady() {
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = 'true';
}
