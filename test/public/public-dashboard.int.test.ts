import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../shared/config/repo-root.js';
import { createProgramManager } from '../../shared/programs/manage-programs.js';
import { createProgramConfigsTable } from '../../shared/tables/index.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import type { RunningTripBuilder } from '../../services/trip-builder/run-trip-builder.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { startConverter, startTripBuilder } from '../helpers/pipeline.js';
import { DAY_OF, phoneEntries } from '../helpers/real-days.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';
import { compositeTrips, pushEntries, settledTrips, userInput } from '../helpers/trips.js';

/*
 * A program's public dashboard in Chromium, against the real stack: three participants of one program and a tester
 * push a real day through the gateway, the converter and the trip builder, and label its trips. All three walk and
 * drive (those figures pass k = 3); one participant and the tester take the gondola (two people: withheld); the
 * tester's trips count nowhere, as the program does not include testers. The page must draw the figures and show
 * no trace of the gondola. ITINERA_SCREENSHOTS=1 saves the page to docs/images/public-dashboard.png.
 */

const DAY = 'shankari_2016-08-10';
const DATE = DAY_OF[DAY];
const TRIPS = 4;
const K = 3;
const PARTICIPANTS = ['nrelop_ride_default_pd1', 'nrelop_ride_default_pd2', 'nrelop_ride_default_pd3'];
const TESTER = 'nrelop_ride_default_test_pd4';
/** The label fewer than k participants use: nowhere on the page nor in its figures, not even its name. */
const WITHHELD = /gondola/i;

const RIDE = {
  version: 1,
  opcode: { autogen: true },
  intro: { translated_text: { en: { deployment_name: 'Ride Study' } } },
  label_options: {
    MODE: [
      { value: 'walk', baseMode: 'WALKING', kgCo2PerKm: 0 },
      { value: 'car', baseMode: 'CAR', kgCo2PerKm: 0.17 },
      { value: 'gondola', baseMode: 'OTHER', kgCo2PerKm: 0.02 },
    ],
    PURPOSE: [{ value: 'work' }, { value: 'shopping' }, { value: 'leisure' }],
    translations: { en: { walk: 'Walk', car: 'Car', gondola: 'Gondola lift', work: 'Work', shopping: 'Shopping' } },
  },
  itinera: { public_dashboard: { weeks: 4, end_date: '2016-08-14' } },
};
const QUIET = { version: 1, opcode: { autogen: true }, itinera: { public_dashboard: { enabled: false } } };

const hasBrowser = browserAvailable();
let env: TestEnv;
let gw: RunningGateway;
let converter: RunningConverter;
let builder: RunningTripBuilder;
let browser: Browser;
let page: Page;
/** What the page reported that a working page never does: script errors, refused loads, requests elsewhere. */
const troubles: string[] = [];

const label = (key: string, trip: any, value: string) =>
  userInput(key, { start: trip.data.start_ts, end: trip.data.end_ts }, { label: value });

/** The day's composite trips of one participant, in start order. */
const tripsOf = async (token: string) =>
  (await compositeTrips(gw, token)).filter((t) => String(t.data.start_fmt_time).startsWith(DATE));

/** The group comparison as a participant of the program reads it: the day's trips by mode label. */
async function groupCounts(): Promise<Record<string, number>> {
  const res = await gw.post('/result/metrics/yyyy_mm_dd', {
    user: PARTICIPANTS[0],
    freq: 'D',
    start_time: DATE,
    end_time: DATE,
    metric_list: { count: ['mode_confirm'] },
    is_return_aggregate: true,
  });
  expect(res.status).toBe(200);
  return res.body.count?.[0] ?? {};
}

beforeAll(async () => {
  if (!hasBrowser) return;
  env = await createTestEnv({
    WEBSERVER_AGGREGATE_MIN_USERS: String(K),
    // Accounts made today, trips of 2016: the history rule would count none.
    WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '0',
  });
  const programs = createProgramManager(createProgramConfigsTable(env.cql));
  const by = 'operator@itinera.test';
  await programs.create({ program: 'ride', document: JSON.stringify(RIDE), by });
  await programs.create({ program: 'quiet', document: JSON.stringify(QUIET), by });
  gw = await startGateway(env);
  converter = await startConverter(env);
  builder = await startTripBuilder(env);

  const everyone = [...PARTICIPANTS, TESTER];
  for (const token of everyone) {
    expect((await gw.post('/profile/create', { user: token })).status, token).toBe(200);
    await pushEntries(gw, token, phoneEntries(DAY));
  }
  for (const token of everyone) await settledTrips(gw, token, DATE, TRIPS);
  for (const token of everyone) {
    const [first, second, third] = await tripsOf(token);
    const inputs = [
      label('manual/mode_confirm', first, 'walk'),
      label('manual/purpose_confirm', first, 'work'),
      label('manual/mode_confirm', second, 'car'),
      label('manual/purpose_confirm', second, 'shopping'),
    ];
    if (token === PARTICIPANTS[0] || token === TESTER)
      inputs.push(label('manual/mode_confirm', third, 'gondola'), label('manual/purpose_confirm', third, 'leisure'));
    await pushEntries(gw, token, inputs);
  }
  // The labels are in the tables the dashboard reads once the group comparison counts them (the gondola trip
  // leaves the participant's unlabelled trips too). The dashboard is asked only then: it keeps what it read.
  const total = (await Promise.all(PARTICIPANTS.map(tripsOf))).reduce((n, list) => n + list.length, 0);
  await waitFor(
    async () => {
      const day = await groupCounts();
      return day['mode_confirm_walk'] === K &&
        day['mode_confirm_car'] === K &&
        day['mode_confirm_UNLABELED'] === total - 2 * K - 1
        ? day
        : undefined;
    },
    60_000,
    'the labels counted in the group comparison',
  );

  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  page.on('pageerror', (err) => troubles.push(`script error: ${err.message}`));
  page.on('console', (msg) =>
    msg.type() === 'error' ? troubles.push(`console: ${msg.text()} (${msg.location().url})`) : undefined,
  );
  page.on('request', (req) => (req.url().startsWith(gw.url) ? undefined : troubles.push(`request: ${req.url()}`)));
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await converter?.stop();
  await gw?.close();
  await env?.dispose();
});

describe.skipIf(!hasBrowser)('a program’s public dashboard in a browser', () => {
  it('When anyone opens the program’s dashboard on a phone, then it draws the program’s figures in charts that fit', async () => {
    await page.goto(`${gw.url}/public/ride/`);
    await expect.poll(() => page.locator('main').getAttribute('aria-busy'), { timeout: 20_000 }).toBe('false');
    expect(await page.locator('h1').innerText()).toBe('Travel in Ride Study');
    const captions = await page.locator('figcaption').allInnerTexts();
    expect(captions).toEqual([
      'Trips per week, by mode',
      'Trips per week, by purpose',
      'Distance per week (km), by mode',
      'Distance per week (km), by purpose',
      'Share of labelled trips by mode, whole period',
      'Share of trips given a mode label, per week',
      'CO₂ per week (kg), by mode',
    ]);
    // Every chart is an image named by its caption, and has its figures as a table.
    for (const figure of await page.locator('figure').all()) {
      const chart = figure.locator('svg[role="img"]');
      expect(await chart.count()).toBe(1);
      const captionId = await figure.locator('figcaption').getAttribute('id');
      expect(await chart.getAttribute('aria-labelledby')).toBe(captionId);
      expect(await figure.locator('details table').count()).toBe(1);
      expect(await chart.locator('rect').count()).toBeGreaterThan(0);
    }
    expect(await page.locator('.legend').first().innerText()).toContain('Walk');
    // 375 px wide: nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(troubles).toEqual([]);
  });

  it('When a keyboard user opens a chart’s table, then it gives the week’s figures: walking and driving by three, the tester left out', async () => {
    const summary = page.locator('summary').first();
    for (let i = 0; i < 20 && !(await summary.evaluate((s) => s === document.activeElement)); i += 1)
      await page.keyboard.press('Tab');
    expect(await summary.evaluate((s) => s === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    const table = page.locator('figure').first().locator('table');
    expect(await table.isVisible()).toBe(true);
    const head = await table.locator('thead th').allInnerTexts();
    expect(head).toEqual(expect.arrayContaining(['Week of', 'Walk', 'Car', 'Not labelled']));
    const week = await table.locator('tbody tr').filter({ hasText: '8 Aug' }).locator('td').allInnerTexts();
    expect(week[head.indexOf('Walk') - 1]).toBe(String(K));
    expect(week[head.indexOf('Car') - 1]).toBe(String(K));
  });

  it('When the figures are read, as the page or as JSON, then the label fewer than k people used is nowhere', async () => {
    const text = await page.evaluate(() => document.body.textContent ?? '');
    expect(text).not.toMatch(WITHHELD);
    expect(await page.content()).not.toMatch(WITHHELD);
    const res = await fetch(`${gw.url}/public/ride/aggregates.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const json = await res.text();
    expect(json).not.toMatch(WITHHELD);
    expect(json).not.toContain('leisure');
    const figures = JSON.parse(json);
    expect(figures.trips.by_mode).toEqual(
      expect.arrayContaining([
        { week: '2016-08-08', label: 'walk', value: K },
        { week: '2016-08-08', label: 'car', value: K },
      ]),
    );
    expect(figures.footprint_kg_co2.by_mode.map((b: any) => b.label).sort()).toEqual(['car', 'walk']);
    expect(figures.mode_share.map((s: any) => s.label).sort()).toEqual(['car', 'walk']);
  });

  it('When a program turns its dashboard off, then it answers as a program that does not exist', async () => {
    const answers = [];
    for (const program of ['quiet', 'nowhere'])
      for (const path of [`/public/${program}/`, `/public/${program}/aggregates.json`]) {
        const res = await fetch(gw.url + path);
        expect(res.status, path).toBe(404);
        answers.push(await res.text());
      }
    expect(new Set(answers).size).toBe(1);
  });

  it('When screenshots are asked for, then the dashboard is saved for the documentation', async () => {
    if (process.env['ITINERA_SCREENSHOTS'] !== '1') return;
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.reload();
    await expect.poll(() => page.locator('main').getAttribute('aria-busy'), { timeout: 20_000 }).toBe('false');
    mkdirSync(join(repoRoot, 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: join(repoRoot, 'docs', 'images', 'public-dashboard.png'), fullPage: true });
  });
});
