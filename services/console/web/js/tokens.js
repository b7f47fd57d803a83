/** Tokens: create participant tokens (each with its QR code), revoke tokens, see those revoked and refused. */
import { get, post } from './api.js';
import { $, emptyRow, fmtTs, frameTable, h, int, markReady, row } from './dom.js';
import { initNav } from './nav.js';

let created = [];
const revokedTable = frameTable($('[data-testid="revoked-table"]'), ['Token', 'Revoked', 'By', 'Reason']);
const refusedTable = frameTable($('[data-testid="refused-table"]'), [
  'Token',
  ['Attempts', 'num'],
  'First',
  'Last',
  'Reason',
]);

/** Our server's QR SVG (made by the qrcode library), parsed as SVG and stripped of anything active. */
function svgNode(markup) {
  const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.nodeName !== 'svg' || doc.querySelector('parsererror')) return h('span', { class: 'bad' }, 'bad QR code');
  for (const node of svg.querySelectorAll('script, foreignObject')) node.remove();
  for (const node of [svg, ...svg.querySelectorAll('*')]) {
    for (const attr of [...node.attributes]) if (/^on/i.test(attr.name)) node.removeAttribute(attr.name);
  }
  svg.setAttribute('role', 'img');
  return document.importNode(svg, true);
}

function card({ token, qrSvg }) {
  const qr = h('div', { 'data-testid': 'token-qr', 'aria-label': `QR code of ${token}` }, svgNode(qrSvg));
  return h('figure', { class: 'qr-card' }, qr, h('figcaption', {}, h('code', {}, token)));
}

async function loadRefused() {
  const { rows } = await get('tokens/refused');
  const body = refusedTable.tBodies[0];
  const trs = rows.map((r) =>
    row([h('code', {}, r.token), [int(r.attempts), 'num'], fmtTs(r.firstTs), fmtTs(r.lastTs), [r.reason, 'wrap']]),
  );
  body.replaceChildren(...(trs.length ? trs : [emptyRow(5, 'No token was refused.')]));
}

async function loadRevoked() {
  const { rows } = await get('tokens/revoked');
  const body = revokedTable.tBodies[0];
  const trs = rows.map((r) => row([h('code', {}, r.token), fmtTs(r.revokedTs), r.revokedBy, [r.reason, 'wrap']]));
  body.replaceChildren(...(trs.length ? trs : [emptyRow(4, 'No token was revoked.')]));
}

$('#revoke-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = event.target.elements;
  const tokens = [...new Set(f.tokens.value.split(/\s+/).filter(Boolean))];
  if (!window.confirm(`Revoke ${tokens.length} token${tokens.length === 1 ? '' : 's'} for good?`)) return;
  const button = $('[data-testid="revoke-submit"]');
  button.disabled = true;
  try {
    const answer = await post('tokens/revoke', { tokens, reason: f.reason.value.trim() });
    $('#revoke-status').textContent =
      `${answer.revoked} revoked` + (answer.alreadyRevoked ? `, ${answer.alreadyRevoked} already were` : '');
    f.tokens.value = '';
    await loadRevoked();
  } finally {
    button.disabled = false;
  }
});

$('#token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = event.target.elements;
  const button = $('[data-testid="token-create"]');
  button.disabled = true;
  try {
    const answer = await post('tokens', {
      program: f.program.value.trim(),
      subgroup: f.subgroup.value.trim() || 'default',
      count: Number(f.count.value),
      tester: f.tester.checked,
    });
    created = answer.tokens;
    $('#created').replaceChildren(...created.map(card));
    $('#created-actions').hidden = created.length === 0;
    $('#copy-status').textContent = `${created.length} token${created.length === 1 ? '' : 's'} created`;
  } finally {
    button.disabled = false;
  }
});

$('#copy-tokens').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(created.map((t) => t.token).join('\n'));
    $('#copy-status').textContent = `${created.length} copied`;
  } catch {
    $('#copy-status').textContent = 'the browser refused the clipboard: select the tokens by hand';
  }
});
$('#print-tokens').addEventListener('click', () => window.print());

/** The programs the person may issue for, offered as they type (a program's admin: theirs). */
async function loadProgramNames() {
  const { programs } = await get('programs');
  $('#program-names').replaceChildren(...programs.map((p) => h('option', { value: p.program })));
}

void Promise.all([initNav(), loadRefused(), loadRevoked(), loadProgramNames()]).then(markReady);
