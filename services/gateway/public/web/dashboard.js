/**
 * A program's public dashboard: reads aggregates.json beside the page and draws each section the program shows as
 * small SVG charts. Each chart has a caption, a legend and its figures as a table (behind a disclosure), so nothing
 * is told by colour or by drawing alone. Every text from the data is set as text, never parsed as markup.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Bar colours, each at least 3:1 against the white background (WCAG 1.4.11); "not labelled" is always grey. */
const PALETTE = ['#1f5fa8', '#c2410c', '#0f766e', '#7e22ce', '#a16207', '#be123c', '#4d7c0f'];
const UNLABELED = 'UNLABELED';
const GREY = '#6b7280';
/** The chart's drawing box: sized for a phone's width, so its text stays legible when the page is 375 px wide. */
const WIDTH = 340;
const HEIGHT = 220;
const MARGIN = { top: 22, right: 8, bottom: 34, left: 44 };

const number = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });
const weekName = (week) =>
  new Date(`${week}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const longDate = (date) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });

function html(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

let figures = 0;

/** A figure: its caption, then what draws it, then its figures as a table the reader can open. */
function figure(caption, drawing, table) {
  const id = `figure-${(figures += 1)}`;
  const box = html('figure', { class: 'chart' }, html('figcaption', { id }, caption));
  if (drawing instanceof SVGElement) {
    drawing.setAttribute('role', 'img');
    drawing.setAttribute('aria-labelledby', id);
  }
  box.append(drawing);
  if (table) box.append(html('details', {}, html('summary', {}, 'Show the figures as a table'), table));
  return box;
}

function dataTable(head, rows) {
  const headRow = html('tr', {}, ...head.map((h) => html('th', { scope: 'col' }, h)));
  const body = rows.map(([first, ...cells]) =>
    html('tr', {}, html('th', { scope: 'row' }, first), ...cells.map((c) => html('td', {}, c))),
  );
  const table = html('table', {}, html('thead', {}, headRow), html('tbody', {}, ...body));
  // A wide table scrolls on a phone; focusable, so that a keyboard can scroll it too.
  return html('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Figures' }, table);
}

function legend(series) {
  const items = series.map((s) =>
    html(
      'li',
      {},
      svg(
        'svg',
        { viewBox: '0 0 10 10', width: 12, height: 12, 'aria-hidden': 'true' },
        svg('rect', { width: 10, height: 10, fill: s.colour }),
      ),
      s.name,
    ),
  );
  return html('ul', { class: 'legend' }, ...items);
}

/** The step between an axis's five ticks: 1, 2 or 5 times a power of ten, so that four steps reach `max`. */
function tickStep(max) {
  if (max <= 0) return 1;
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough);
}

/** Bars per week, stacked by label; `top` fixes the axis (100 for percentages). */
function weekBars(weeks, series, valueOf, unit, top) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const totals = weeks.map((w) => series.reduce((sum, s) => sum + (valueOf(s, w) ?? 0), 0));
  const axisTop = top ?? tickStep(Math.max(...totals)) * 4;
  const y = (v) => MARGIN.top + plotH - (v / axisTop) * plotH;
  const band = plotW / weeks.length;
  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'bars' });
  for (let i = 0; i <= 4; i += 1) {
    const v = (axisTop * i) / 4;
    chart.append(svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(v), y2: y(v), class: 'grid' }));
    chart.append(svg('text', { x: MARGIN.left - 4, y: y(v) + 4, class: 'tick y' }, number.format(v)));
  }
  const every = Math.ceil(weeks.length / 6);
  weeks.forEach((week, i) => {
    const x = MARGIN.left + i * band + band * 0.15;
    let base = 0;
    for (const s of series) {
      const v = valueOf(s, week);
      if (!v) continue;
      const bar = svg('rect', { x, width: band * 0.7, y: y(base + v), height: y(base) - y(base + v), fill: s.colour });
      bar.append(svg('title', {}, `${s.name}, week of ${weekName(week)}: ${number.format(v)} ${unit}`));
      chart.append(bar);
      base += v;
    }
    if ((weeks.length - 1 - i) % every === 0)
      chart.append(
        svg('text', { x: x + band * 0.35, y: HEIGHT - MARGIN.bottom + 16, class: 'tick x' }, weekName(week)),
      );
  });
  chart.append(svg('text', { x: 4, y: 12, class: 'unit' }, unit));
  return chart;
}

/** The labels of a list of week bins as chart series, largest total first, each with its colour and name. */
function seriesOf(bins, data) {
  const totals = new Map();
  for (const b of bins) totals.set(b.label, (totals.get(b.label) ?? 0) + b.value);
  const names = new Map(data.labels.map((l) => [l.value, l.name]));
  const order = data.labels.map((l) => l.value);
  return [...totals.keys()]
    .sort((a, b) => totals.get(b) - totals.get(a))
    .map((label) => ({
      label,
      name: names.get(label) ?? label,
      colour: label === UNLABELED ? GREY : PALETTE[order.indexOf(label) % PALETTE.length],
    }));
}

const tooFew = (what) =>
  html(
    'p',
    { class: 'empty' },
    `No ${what} to show: no week has enough participants yet for a figure that reveals no one.`,
  );

/** A stacked weekly chart of one list of bins, with its legend and table. */
function weeklyChart(caption, bins, unit, data) {
  if (bins.length === 0) return figure(caption, tooFew(unit));
  const series = seriesOf(bins, data);
  const at = new Map(bins.map((b) => [`${b.week}|${b.label}`, b.value]));
  const valueOf = (s, week) => at.get(`${week}|${s.label}`);
  const rows = data.weeks.map((w) => [
    weekName(w),
    ...series.map((s) => (at.has(`${w}|${s.label}`) ? number.format(valueOf(s, w)) : '–')),
  ]);
  const box = figure(
    caption,
    weekBars(data.weeks, series, valueOf, unit),
    dataTable(['Week of', ...series.map((s) => s.name)], rows),
  );
  box.insertBefore(legend(series), box.querySelector('details'));
  return box;
}

function modeShareChart(shares, data) {
  const caption = 'Share of labelled trips by mode, whole period';
  if (shares.length === 0) return figure(caption, tooFew('labelled trips'));
  const series = seriesOf(
    shares.map((s) => ({ label: s.label, value: s.trips })),
    data,
  );
  const rowH = 26;
  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${shares.length * rowH + 8}`, class: 'shares' });
  shares.forEach((share, i) => {
    const s = series.find((x) => x.label === share.label);
    const top = 4 + i * rowH;
    chart.append(svg('text', { x: 0, y: top + 16, class: 'name' }, s.name));
    chart.append(
      svg('rect', { x: 120, y: top + 3, height: 18, width: Math.max(1, share.share * 180), fill: s.colour }),
    );
    chart.append(svg('text', { x: 124 + share.share * 180, y: top + 16, class: 'value' }, percent.format(share.share)));
  });
  const rows = shares.map((s) => [
    series.find((x) => x.label === s.label).name,
    number.format(s.trips),
    percent.format(s.share),
  ]);
  return figure(caption, chart, dataTable(['Mode', 'Trips', 'Share'], rows));
}

function labelledChart(weeks, data) {
  const caption = 'Share of trips given a mode label, per week';
  if (weeks.length === 0) return figure(caption, tooFew('trips'));
  const byWeek = new Map(weeks.map((w) => [w.week, w]));
  const series = [{ label: 'labelled', name: 'Labelled', colour: PALETTE[0] }];
  const chart = weekBars(
    data.weeks,
    series,
    (_, w) => (byWeek.has(w) ? byWeek.get(w).share * 100 : undefined),
    '%',
    100,
  );
  const rows = weeks.map((w) => [
    weekName(w.week),
    number.format(w.labelled),
    number.format(w.unlabelled),
    percent.format(w.share),
  ]);
  return figure(caption, chart, dataTable(['Week of', 'Labelled', 'Not labelled', 'Share'], rows));
}

/** Each section the program shows, in order: its heading and its charts. */
const SECTIONS = {
  trips: [
    'Trips',
    (d) => [
      weeklyChart('Trips per week, by mode', d.trips.by_mode, 'trips', d),
      weeklyChart('Trips per week, by purpose', d.trips.by_purpose, 'trips', d),
    ],
  ],
  distance: [
    'Distance',
    (d) => [
      weeklyChart('Distance per week (km), by mode', d.distance_km.by_mode, 'km', d),
      weeklyChart('Distance per week (km), by purpose', d.distance_km.by_purpose, 'km', d),
    ],
  ],
  mode_share: ['Mode share', (d) => [modeShareChart(d.mode_share, d)]],
  labelled_share: ['Labelled trips', (d) => [labelledChart(d.labelled_share, d)]],
  footprint: [
    'Carbon footprint',
    (d) => [
      d.footprint_kg_co2 === null
        ? html(
            'p',
            { class: 'empty' },
            'The program’s labels give no mode a carbon factor, so there is no footprint to show.',
          )
        : weeklyChart('CO₂ per week (kg), by mode', d.footprint_kg_co2.by_mode, 'kg CO₂', d),
    ],
  ],
};

function render(data) {
  document.title = `Travel in ${data.name}`;
  document.getElementById('title').textContent = `Travel in ${data.name}`;
  document.getElementById('period').textContent =
    `From ${longDate(data.first_date)} to ${longDate(data.last_date)}. Each figure is made from at least ${data.k} participants. Updated ${new Date(data.generated_at).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })}.`;
  const main = document.getElementById('dashboard');
  main.replaceChildren(
    ...data.sections.map((name) => {
      const [heading, charts] = SECTIONS[name];
      return html(
        'section',
        { 'aria-labelledby': `section-${name}` },
        html('h2', { id: `section-${name}` }, heading),
        html('div', { class: 'charts' }, ...charts(data)),
      );
    }),
  );
  main.setAttribute('aria-busy', 'false');
}

async function main() {
  const status = document.getElementById('status');
  try {
    const res = await fetch('aggregates.json', { headers: { accept: 'application/json' } });
    if (!res.ok)
      throw new Error(res.status === 404 ? 'this dashboard is not available' : `the server answered ${res.status}`);
    render(await res.json());
  } catch (err) {
    status.textContent = `The figures could not be loaded: ${err.message}.`;
    document.getElementById('dashboard').setAttribute('aria-busy', 'false');
  }
}

await main();
