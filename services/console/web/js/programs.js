/** Programs: each program's configuration and history; new versions (operators) and new programs (deployment). */
import { get, post } from './api.js';
import { $, emptyRow, fmtTs, frameTable, h, int, markReady, prettyJson, row } from './dom.js';
import { initNav } from './nav.js';

const programParam = new URLSearchParams(location.search).get('program');
// A program's row in the list is its current version's row in its history, with its name first.
const VERSION_COLUMNS = [['Version', 'num'], 'Changed', 'By', 'Note'];
const programsTable = frameTable($('[data-testid="programs-table"]'), ['Program', ...VERSION_COLUMNS]);
const historyTable = frameTable($('[data-testid="program-history"]'), VERSION_COLUMNS);

function status(text) {
  $('#program-status').textContent = text;
}

async function loadList() {
  const { programs } = await get('programs');
  const rows = programs.map((p) =>
    row(
      [
        h(
          'a',
          { href: `programs.html?program=${encodeURIComponent(p.program)}`, onclick: openProgram(p.program) },
          p.program,
        ),
        [int(p.version), 'num'],
        fmtTs(p.changedAt),
        p.changedBy,
        [p.note, 'wrap'],
      ],
      { 'data-testid': 'program-row' },
    ),
  );
  const none = 'No program: every participant is in the deployment’s one implicit program.';
  programsTable.tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(5, none)]));
}

/** A click on a program shows it without leaving the page (the link still works in a new tab). */
function openProgram(program) {
  return (event) => {
    event.preventDefault();
    history.replaceState(null, '', `${location.pathname}?program=${encodeURIComponent(program)}`);
    void show(program);
  };
}

async function show(program) {
  const p = await get(`programs/${encodeURIComponent(program)}`);
  $('#detail').hidden = false;
  $('#detail').dataset.program = p.program;
  $('#detail-title').textContent = `${p.program}: version ${p.version}`;
  $('[data-testid="program-document"]').textContent = prettyJson(p.document);
  $('#version-form').elements.document.value = prettyJson(p.document);
  const versions = p.history.map((v) =>
    row([[int(v.version), 'num'], fmtTs(v.changedAt), v.changedBy, [v.note, 'wrap']]),
  );
  historyTable.tBodies[0].replaceChildren(...versions);
}

$('#version-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = event.target.elements;
  const program = $('#detail').dataset.program;
  const saved = await post(`programs/${encodeURIComponent(program)}/versions`, {
    document: f.document.value,
    note: f.note.value.trim() || undefined,
  });
  f.note.value = '';
  status(`${saved.program}: version ${saved.version} saved`);
  await Promise.all([loadList(), show(program)]);
});

$('#create-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = event.target.elements;
  const saved = await post('programs', {
    program: f.program.value.trim(),
    document: f.document.value,
    note: f.note.value.trim() || undefined,
  });
  event.target.reset();
  status(`${saved.program} created at version ${saved.version}`);
  await Promise.all([loadList(), show(saved.program)]);
});

void Promise.all([initNav(), loadList(), programParam ? show(programParam) : undefined]).then(markReady);
