/** Dead letters: counts by key and reason, the entries themselves, and replays (selected, all, from the topic). */
import { get, post } from './api.js';
import { $, emptyRow, fmtTs, frameTable, h, int, markReady, prettyJson, row } from './dom.js';
import { followJob } from './job.js';
import { initNav } from './nav.js';

const summaryTable = frameTable($('#summary-table'), [
  'Key',
  'Reason',
  ['Count', 'num'],
  { label: h('span', { class: 'muted' }, 'list') },
]);
const selectAll = h('input', { type: 'checkbox', id: 'select-all', 'aria-label': 'Select every entry listed' });
const listTable = frameTable($('#list-table'), [
  { label: selectAll, class: 'operator-only' },
  'User token',
  'Key',
  'Type',
  'Written',
  'Failed',
  'Reason',
  'Entry',
]);
const listBody = listTable.tBodies[0];
const selected = new Map(); // row key → DeadLetterRef
const refKey = (d) => `${d.userId}|${d.key}|${d.writeTs}|${d.type}`;
let jobRunning = false;

async function loadSummary() {
  const s = await get('dead-letters/summary');
  $('[data-testid="dead-letter-total"]').textContent = String(s.total);
  $('#total-note').textContent = s.truncated ? 'or more (the count stopped at its bound)' : 'in all';
  $('#summary-total').textContent = `${s.truncated ? '≥ ' : ''}${int(s.total)}`;
  const rows = s.groups.map((g) =>
    row([
      h('code', {}, g.key),
      [g.reason, 'wrap'],
      [int(g.count), 'num'],
      h('button', { type: 'button', class: 'link', onclick: () => filterTo(g.key, g.reason) }, 'list'),
    ]),
  );
  summaryTable.tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(4, 'No dead letters.')]));
}

function filterTo(key, reason) {
  const form = $('#filter');
  form.elements.key.value = key;
  form.elements.reason.value = reason;
  void loadList();
}

function updateSelection() {
  const button = $('[data-testid="replay-selected"]');
  button.textContent = `Replay selected (${selected.size})`;
  button.disabled = selected.size === 0 || jobRunning;
  $('[data-testid="replay-all"]').disabled = jobRunning;
  const boxes = listBody.querySelectorAll('input[type="checkbox"]');
  selectAll.checked = boxes.length > 0 && selected.size === boxes.length;
}

function letterRow(d) {
  const box = h('input', { type: 'checkbox', 'aria-label': `Select ${d.type} of ${d.token} at ${fmtTs(d.writeTs)}` });
  box.addEventListener('change', () => {
    if (box.checked) selected.set(refKey(d), { userId: d.userId, key: d.key, writeTs: d.writeTs, type: d.type });
    else selected.delete(refKey(d));
    updateSelection();
  });
  // The entry is pretty-printed when first opened: a page of 200 rows would otherwise parse and lay out 200 JSON
  // documents nobody looks at before it can show.
  const entry = h('details', {}, h('summary', {}, `${d.entry.length} chars`));
  entry.addEventListener('toggle', () => {
    if (entry.open && !entry.querySelector('pre')) entry.append(h('pre', {}, prettyJson(d.entry)));
  });
  return h(
    'tr',
    { 'data-testid': 'dead-letter-row' },
    h('td', { class: 'operator-only' }, box),
    h('td', { title: d.userId }, h('code', {}, d.token)),
    h('td', {}, h('code', {}, d.key)),
    h('td', {}, d.type),
    h('td', {}, fmtTs(d.writeTs)),
    h('td', {}, fmtTs(d.failedTs)),
    h('td', { class: 'wrap bad' }, d.reason),
    h('td', {}, entry),
  );
}

async function loadList() {
  const form = $('#filter').elements;
  const { rows } = await get('dead-letters', {
    limit: form.limit.value,
    key: form.key.value.trim(),
    reason: form.reason.value.trim(),
  });
  selected.clear();
  listBody.replaceChildren(...(rows.length ? rows.map(letterRow) : [emptyRow(8, 'No dead letters match.')]));
  updateSelection();
}

async function runJob(start) {
  jobRunning = true;
  updateSelection();
  try {
    const job = await start();
    await followJob($('#job-panel'), job);
  } finally {
    jobRunning = false;
    await Promise.all([loadSummary(), loadList()]);
  }
}

selectAll.addEventListener('change', (e) => {
  for (const box of listBody.querySelectorAll('input[type="checkbox"]')) {
    if (box.checked !== e.target.checked) box.click();
  }
});
$('[data-testid="replay-selected"]').addEventListener('click', () => {
  const selection = [...selected.values()];
  if (!confirm(`Replay the ${selection.length} selected dead letters?`)) return;
  void runJob(() => post('dead-letters/replay', { selection }));
});
$('[data-testid="replay-all"]').addEventListener('click', () => {
  const total = $('[data-testid="dead-letter-total"]').textContent;
  if (!confirm(`Replay ALL dead letters (${total})?`)) return;
  void runJob(() => post('dead-letters/replay', { all: true }));
});
$('#filter').addEventListener('submit', (e) => {
  e.preventDefault();
  void loadList();
});
$('#reload').addEventListener('click', () => void Promise.all([loadSummary(), loadList()]));
$('#topic-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = e.target.elements;
  const body = { since: f.since.value.trim(), dryRun: f.dryRun.checked };
  if (f.key.value.trim()) body.key = f.key.value.trim();
  if (f.reason.value.trim()) body.reason = f.reason.value.trim();
  if (!body.dryRun && !confirm(`Replay from the dead-letter topic since ${body.since}? This is not a dry run.`)) return;
  void runJob(() => post('dead-letters/replay-topic', body));
});

void Promise.all([initNav(), loadSummary(), loadList()]).then(markReady);
