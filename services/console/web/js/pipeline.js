/** Pipeline: consumer lag per group and partition, stalled groups, users whose trips are behind. Refreshes every 5 s. */
import { clearError, get } from './api.js';
import { $, age, dec, emptyRow, fmtTs, frameTable, h, int, markReady, row, tableHead } from './dom.js';
import { initNav } from './nav.js';

const REFRESH_MS = 5000;
let timer = null;
const behindTable = frameTable($('#behind-table'), [
  'Token',
  'User',
  'Trips built up to',
  'Last push',
  ['Behind by', 'num'],
]);

function groupSection(g, now) {
  const head = h(
    'h2',
    {},
    `${g.group} `,
    h('span', { class: 'muted' }, `← ${g.topic} · lag ${int(g.lag)} · ${dec(g.rate)}/s `),
    g.stalled ? h('span', { class: 'bad' }, 'STALLED') : null,
  );
  const rows = g.partitions.map((p) =>
    row(
      [
        [p.partition, 'num'],
        [int(p.committed), 'num'],
        [int(p.end), 'num'],
        [int(p.lag), p.lag > 0 ? 'num bad' : 'num'],
        p.lastCommitAt === null ? '—' : `${fmtTs(p.lastCommitAt)} (${age(p.lastCommitAt, now)} ago)`,
        [dec(p.rate), 'num'],
      ],
      { class: g.stalled && p.lag > 0 ? 'stalled' : null },
    ),
  );
  const table = h(
    'table',
    { class: 'data', 'data-testid': 'pipeline-table', 'data-group': g.group, 'aria-label': `Partitions of ${g.group}` },
    tableHead([
      ['Partition', 'num'],
      ['Committed', 'num'],
      ['End', 'num'],
      ['Lag', 'num'],
      'Last commit',
      ['Rate /s', 'num'],
    ]),
    h('tbody', {}, rows.length ? rows : emptyRow(6, 'no partitions')),
    h('tfoot', {}, row(['Total', '', '', [int(g.lag), g.lag > 0 ? 'num bad' : 'num'], '', [dec(g.rate), 'num']])),
  );
  return h('section', {}, head, h('div', { class: 'table-wrap' }, table));
}

function render(p) {
  const now = p.sampledAt;
  $('#sampled').textContent = fmtTs(p.sampledAt);
  const stalled = p.groups.filter((g) => g.stalled);
  const banner = $('[data-testid="stalled-banner"]');
  banner.hidden = stalled.length === 0;
  banner.textContent = stalled.length
    ? `Stalled: ${stalled.map((g) => `${g.group} (lag ${int(g.lag)})`).join(', ')}: lag and no commit for ` +
      `${p.stalledMinutes} minutes or more. Check that consumer's logs.`
    : '';
  const lag = p.groups.reduce((sum, g) => sum + g.lag, 0);
  const rate = p.groups.reduce((sum, g) => sum + g.rate, 0);
  $('#totals').replaceChildren(
    h('strong', {}, `Total lag ${int(lag)}`),
    ` · ${dec(rate)} records/s over ${p.groups.length} consumer groups`,
  );
  $('#groups').replaceChildren(...p.groups.map((g) => groupSection(g, now)));

  const b = p.behind;
  $('#behind-info').textContent =
    `${int(b.count)} users whose trips lag their last push by more than ${b.thresholdHours} h` +
    (b.count > b.users.length ? ` (first ${b.users.length} shown)` : '');
  const rows = b.users.map((u) =>
    row([
      h('code', {}, u.token),
      h('a', { href: `day.html?user=${u.userId}&date=${fmtTs(u.resumeFromTs).slice(0, 10)}` }, u.userId),
      fmtTs(u.resumeFromTs),
      fmtTs(u.lastPush),
      [age(u.resumeFromTs, u.lastPush), 'num'],
    ]),
  );
  behindTable.tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(5, 'nobody is behind')]));
}

async function refresh() {
  clearTimeout(timer);
  try {
    render(await get('pipeline'));
    clearError();
  } catch {
    // shown in the error banner; tried again at the next tick
  } finally {
    if ($('#auto').checked) timer = setTimeout(refresh, REFRESH_MS);
  }
}

$('#refresh').addEventListener('click', () => void refresh());
$('#auto').addEventListener('change', () => void refresh());
void Promise.all([initNav(), refresh()]).then(markReady);
