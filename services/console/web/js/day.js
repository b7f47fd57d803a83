/** One user's day: the trips on a map and in a list, previous/next day with data. ?user=<uuid>&date=YYYY-MM-DD */
import { get, showError } from './api.js';
import { createDayMap } from './day-map.js';
import { $, duration, h, hhmm, hhmmIn, km, localDate, markReady } from './dom.js';
import { colorFor, legend, swatch } from './modes.js';
import { initNav } from './nav.js';

const params = new URLSearchParams(location.search);
const user = params.get('user') ?? '';
const date = params.get('date') || localDate(Date.now() / 1000);
const dayUrl = (d) => `day.html?user=${encodeURIComponent(user)}&date=${d}`;
let dayMap;

function dayLink(id, target) {
  const link = $(id);
  link.hidden = target === null;
  if (target !== null) link.href = dayUrl(target);
}

function labelText(labels) {
  return Object.entries(labels).map(([key, value]) => `${key.replace(/_confirm$/, '')}: ${value}`);
}

function sectionItem(section, timeZone) {
  const button = h('button', { type: 'button', class: 'link', 'aria-pressed': 'false' }, 'raw points');
  const status = h('span', { class: 'muted' });
  button.addEventListener('click', async (event) => {
    event.stopPropagation();
    button.disabled = true;
    try {
      const { points, truncated } = await get(`users/${user}/section-points`, {
        start: section.startTs,
        end: section.endTs,
      });
      const shown = dayMap.togglePoints(section.sectionId, section.mode, points);
      button.setAttribute('aria-pressed', String(shown));
      status.textContent = shown ? ` ${points.length} points${truncated ? ' (truncated)' : ''}` : '';
    } finally {
      button.disabled = false;
    }
  });
  const times = `${hhmmIn(section.startTs, timeZone)}–${hhmmIn(section.endTs, timeZone)}`;
  return h('li', {}, swatch(section.mode), `${section.mode} ${times} · ${km(section.distance)} `, button, status);
}

function tripItem(trip, timeZone) {
  const item = h(
    'li',
    {
      class: trip.untracked ? 'trip untracked' : 'trip',
      'data-testid': trip.untracked ? 'untracked-row' : 'trip-row',
      'data-trip-id': trip.tripId,
    },
    h(
      'button',
      { type: 'button', class: 'trip-head', 'aria-pressed': 'false' },
      h(
        'span',
        { class: 'time' },
        h('span', { 'data-testid': 'trip-start' }, hhmm(trip.startFmtTime)),
        '–',
        h('span', { 'data-testid': 'trip-end' }, hhmm(trip.endFmtTime)),
      ),
      h('span', {}, km(trip.distance)),
      h('span', {}, duration(trip.duration)),
      trip.untracked ? h('span', { class: 'badge' }, 'untracked') : null,
    ),
    h('div', { class: 'meta' }, trip.modes.length ? trip.modes.map((m) => [swatch(m), `${m} `]) : 'no mode'),
    Object.keys(trip.labels).length ? h('div', {}, labelText(trip.labels).join(' · ')) : null,
    trip.notes.map((note) => h('div', { class: 'note' }, `“${note}”`)),
    trip.sections.length
      ? h(
          'ul',
          {},
          trip.sections.map((s) => sectionItem(s, timeZone)),
        )
      : null,
  );
  if (trip.modes[0]) item.style.borderLeftColor = colorFor(trip.modes[0]);
  item.addEventListener('click', () => selectTrip(trip.tripId));
  return item;
}

function selectTrip(tripId) {
  const selected = dayMap.select(tripId);
  for (const item of document.querySelectorAll('[data-testid="trip-row"]')) {
    const on = item.dataset.tripId === selected;
    item.classList.toggle('selected', on);
    item.querySelector('.trip-head').setAttribute('aria-pressed', String(on));
    if (on) item.scrollIntoView({ block: 'nearest' });
  }
}

function render(day) {
  $('#day-tz').textContent = day.timeZone ?? 'time zone unknown';
  dayLink('#prev-day', day.previousDate);
  dayLink('#next-day', day.nextDate);
  const trips = day.trips;
  const total = trips.reduce((sum, t) => sum + t.distance, 0);
  $('#day-summary').textContent = trips.length
    ? `${trips.length} trip${trips.length > 1 ? 's' : ''} · ${km(total)}`
    : 'No trips on this day.';
  $('#legend').replaceChildren(...legend(trips.flatMap((t) => t.sections.map((s) => s.mode))));
  $('#trips').replaceChildren(...trips.map((t) => tripItem(t, day.timeZone)));
  $('#trip-lines-count').textContent = String(dayMap.draw(trips));
}

/** What each class of quarter-hour is called on the page (shared/quality/day-score.ts states the rule). */
const QUARTER_WORDS = {
  L: 'located',
  P: 'at a place',
  T: 'tracking off',
  M: 'no locations',
  N: 'no data',
};
const GAP_WORDS = { tracking_off: 'tracking off', no_locations: 'no locations', no_data: 'no data' };

function renderQuality(quality) {
  const day = quality.days.find((d) => d.localDate === date);
  if (!day) return;
  $('#day-quality').hidden = false;
  $('#day-score').textContent = day.score === null ? '–' : `${Math.round(day.score * 100)} %`;
  const counts = Object.entries(QUARTER_WORDS)
    .map(([letter, word]) => [word, [...day.strip].filter((c) => c === letter).length])
    .filter(([, n]) => n > 0);
  const strip = $('#day-strip');
  strip.setAttribute('aria-label', `Quarter-hours of the day: ${counts.map(([w, n]) => `${n} ${w}`).join(', ')}`);
  strip.replaceChildren(
    ...[...day.strip].map((c, i) => h('span', { class: `q-${c}`, title: `${hhmmOfQuarter(i)} ${QUARTER_WORDS[c]}` })),
  );
  const battery = day.battery ? ` · battery ${Math.round(day.battery.pct)} % at its last reading` : '';
  const labelled = day.trips ? ` · ${day.labelledTrips} of ${day.trips} trips labelled` : '';
  $('#day-quality-summary').textContent = `${day.hoursWithLocations} h with locations${labelled}${battery}`;
  $('#day-gaps').replaceChildren(
    ...day.gaps.map((g) => h('li', {}, `${g.from}–${g.to}: ${GAP_WORDS[g.reason] ?? g.reason}`)),
  );
}

const hhmmOfQuarter = (q) => `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;

$('#day-date').textContent = date;
$('#day-user').textContent = user;
$('#participant-link').href = `index.html?q=${encodeURIComponent(user)}`;
$('#reset-link').href = `reset.html?user=${encodeURIComponent(user)}&from=${date}`;
const pick = $('#date-pick');
pick.value = date;
pick.addEventListener('change', () => {
  if (pick.value) location.assign(dayUrl(pick.value));
});

async function start() {
  // The day is asked for at once, beside /me (which the map's tile URL comes from).
  const day = user ? get(`users/${encodeURIComponent(user)}/days/${date}`) : undefined;
  // The day's completeness is read beside it; a failure there leaves the trips shown.
  const quality = user
    ? get(`users/${encodeURIComponent(user)}/quality?from=${date}&to=${date}`).catch(() => undefined)
    : undefined;
  const me = await initNav();
  dayMap = createDayMap($('#map'), me.tileUrl, selectTrip);
  $('#no-base-map').hidden = Boolean(me.tileUrl);
  if (day) {
    render(await day);
    const q = await quality;
    if (q) renderQuality(q);
    return;
  }
  dayMap.draw([]);
  showError('This page needs ?user=<uuid>&date=YYYY-MM-DD: open it from the participants page.');
}
void start().then(markReady);
