/** Reset: rebuild one user's or everyone's trips from a date. A dry run first; the reset runs what was planned. */
import { post } from './api.js';
import { $, h, markReady } from './dom.js';
import { followJob } from './job.js';
import { initNav } from './nav.js';

const form = $('#reset-form');
const userInput = $('[data-testid="reset-user"]');
const fromInput = $('[data-testid="reset-from"]');
const runButton = $('[data-testid="reset-run"]');
let planned = null; // the request of the last dry run, as JSON
let running = false;

/** The request the form describes (without dryRun). */
function request() {
  const everyone = form.elements.scope.value === 'all';
  const body = everyone ? { everyone: true } : { userId: userInput.value.trim().toLowerCase() };
  if (fromInput.value) body.from = fromInput.value;
  return body;
}

function refresh() {
  const everyone = form.elements.scope.value === 'all';
  userInput.disabled = everyone;
  userInput.required = !everyone;
  const ready = planned !== null && planned === JSON.stringify(request());
  runButton.disabled = !ready || running;
  $('#run-hint').textContent = running ? 'a reset is running' : ready ? '' : 'run a dry run of these inputs first';
}

form.addEventListener('input', refresh);
form.addEventListener('change', refresh);

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!form.reportValidity()) return;
  const body = request();
  const button = $('[data-testid="reset-dry-run"]');
  button.disabled = true;
  try {
    const plan = await post('reset', { ...body, dryRun: true });
    planned = JSON.stringify(body);
    $('#plan-section').hidden = false;
    $('#plan-head').replaceChildren(
      h('strong', {}, plan.scope === 'all' ? 'Everyone' : `User ${body.userId}`),
      ` from ${plan.from}: ${plan.lines.length} line${plan.lines.length === 1 ? '' : 's'}`,
    );
    $('[data-testid="reset-plan"]').textContent = plan.lines.join('\n') || '(nothing to do)';
  } finally {
    button.disabled = false;
    refresh();
  }
});

runButton.addEventListener('click', async () => {
  const body = request();
  const who = body.userId ? `user ${body.userId}` : 'EVERYONE';
  if (!confirm(`Reset ${who} from ${body.from ?? 'the start'}? Their trips will be rebuilt.`)) return;
  running = true;
  refresh();
  try {
    const job = await post('reset', { ...body, dryRun: false });
    planned = null;
    await followJob($('#job-panel'), job);
  } finally {
    running = false;
    refresh();
  }
});

const params = new URLSearchParams(location.search);
if (params.get('user')) userInput.value = params.get('user');
if (params.get('from')) fromInput.value = params.get('from');
refresh();
void initNav().then(markReady);
