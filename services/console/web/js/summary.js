/** Summary: trips and active users per day, distance by detected mode and by the users' labels. */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { get } from './api.js';
import { $, h, markReady } from './dom.js';
import { colorFor } from './modes.js';
import { initNav } from './nav.js';

// Only what these four charts draw (bars, a line, category and linear axes, tooltips): the rest of Chart.js stays
// out of the page's bundle.
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

/** A chart's figure: its caption names the chart to screen readers. */
function chartFigure(name, caption, attrs = {}) {
  const canvas = h('canvas', { id: `${name}-chart`, role: 'img', 'aria-labelledby': `${name}-caption`, ...attrs });
  return h('figure', {}, h('figcaption', { id: `${name}-caption` }, caption), h('div', { class: 'chart-box' }, canvas));
}

$('.charts').replaceChildren(
  chartFigure('trips', 'Trips per day', { 'data-testid': 'summary-trips-chart' }),
  chartFigure('users', 'Active users per day'),
  chartFigure('mode', 'Distance by detected mode (km)'),
  chartFigure('label', 'Distance by user label (km)'),
);

const charts = {};
const style = getComputedStyle(document.documentElement);
Chart.defaults.color = style.getPropertyValue('--fg').trim() || '#1b1f24';
Chart.defaults.borderColor = style.getPropertyValue('--line').trim() || '#d5d9df';
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

function draw(id, config) {
  charts[id]?.destroy();
  charts[id] = new Chart($(`#${id}`), config);
}

/** { a: 1200, b: 30 } (metres) → entries sorted by distance, in km. */
const byDistance = (record) =>
  Object.entries(record)
    .map(([key, metres]) => [key, Math.round(metres / 100) / 10])
    .sort((a, b) => b[1] - a[1]);

function horizontalBars(id, entries, colors, label) {
  draw(id, {
    type: 'bar',
    data: {
      labels: entries.map(([key]) => key),
      datasets: [{ label, data: entries.map(([, v]) => v), backgroundColor: colors }],
    },
    options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true } } },
  });
}

async function load() {
  const s = await get('summary', { days: $('#days').value });
  const trips = s.perDay.reduce((sum, d) => sum + d.trips, 0);
  $('#period').textContent = `${s.from} to ${s.to} · ${trips} trips`;
  const labels = s.perDay.map((d) => d.date);
  draw('trips-chart', {
    type: 'bar',
    data: { labels, datasets: [{ label: 'trips', data: s.perDay.map((d) => d.trips), backgroundColor: '#1d5fd1' }] },
    options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
  });
  draw('users-chart', {
    type: 'line',
    data: {
      labels,
      datasets: [{ label: 'active users', data: s.perDay.map((d) => d.activeUsers), borderColor: '#2e9e44' }],
    },
    options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
  });
  const modes = byDistance(s.distanceByMode);
  horizontalBars(
    'mode-chart',
    modes,
    modes.map(([mode]) => colorFor(mode)),
    'km',
  );
  horizontalBars('label-chart', byDistance(s.distanceByLabel), '#8e44ad', 'km');
  $('[data-testid="summary-trips-chart"]').dataset.total = String(trips);
}

$('#days').addEventListener('change', () => void load());
void Promise.all([initNav(), load()]).then(markReady);
