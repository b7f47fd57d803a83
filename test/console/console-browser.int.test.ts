import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../shared/config/repo-root.js';
import { createErrorTimeseries, type DeadLetter } from '../../shared/timeseries/index.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { startConsole, type RunningConsole } from '../helpers/console.js';
import { loginInBrowser } from '../helpers/console-login.js';
import { startInProcessPipeline, type InProcessPipeline } from '../helpers/pipeline.js';
import { DAY_OF, loadGroundTruth, phoneEntries } from '../helpers/real-days.js';
import { pushEntries, settledTrips } from '../helpers/trips.js';

/*
 * The operators' console in a real browser (Debian's Chromium through playwright-core) against the real stack: a
 * participant pushes a real day through the gateway, the converter and the trip builder build it, and an operator
 * logs in through the development OIDC provider and works the pages. Each page's screenshot goes to
 * test-results/console/ (three of them are in the README).
 */

const DAY = 'shankari_2015-aug-27';
const TOKEN = 'console-e2e@example.org';
const shots = join(repoRoot, 'test-results', 'console');
const hasBrowser = browserAvailable();

let pipeline: InProcessPipeline;
let consoleApp: RunningConsole;
let browser: Browser;
let page: Page;
let userId: string;

/** A dead letter of an entry the converter refused then ("a bug since fixed") and converts now. */
function fixedLetter(user: string, i: number): DeadLetter {
  const writeTs = 1440700000 + i;
  const metadata = {
    key: 'statemachine/transition',
    platform: 'android',
    type: 'message',
    write_ts: writeTs,
    time_zone: 'America/Los_Angeles',
  };
  return {
    user_id: user,
    key: 'statemachine/transition',
    type: 'message',
    write_ts: writeTs,
    reason: 'a converter bug, since fixed',
    source_topic: 'usercache',
    source_partition: 0,
    source_offset: i,
    failed_ts: Date.now() / 1000,
    metadata_json: JSON.stringify(metadata),
    data_json: JSON.stringify({
      currState: 'local.state.waiting_for_trip_start',
      transition: 'local.transition.stopped_moving',
    }),
  };
}

const hhmm = (fmt: string) => fmt.slice(11, 16);
const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));

async function shoot(name: string) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  if (!hasBrowser) return;
  mkdirSync(shots, { recursive: true });
  pipeline = await startInProcessPipeline();
  const created = await pipeline.gw.post('/profile/create', { user: TOKEN });
  expect(created.status).toBe(200);
  userId = created.body.uuid as string;
  await pushEntries(pipeline.gw, TOKEN, phoneEntries(DAY));
  await settledTrips(pipeline.gw, TOKEN, DAY_OF[DAY], 8);
  const errors = createErrorTimeseries(pipeline.env.cql);
  for (let i = 0; i < 3; i += 1) await errors.insert(fixedLetter(userId, i));
  consoleApp = await startConsole(pipeline.env);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await loginInBrowser(page, consoleApp.url, 'operator@itinera.local');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await consoleApp?.close();
  await pipeline?.stop();
});

describe.skipIf(!hasBrowser)('the operators’ console in a browser', () => {
  it('When nobody is logged in, then neither the API nor a page gives anything away', async () => {
    const api = await fetch(`${consoleApp.url}/admin/api/participants`);
    expect(api.status).toBe(401);
    expect(JSON.stringify(await api.json())).not.toContain(TOKEN.slice(0, 6));
    const pageAnswer = await fetch(`${consoleApp.url}/admin/index.html`, { redirect: 'manual' });
    expect(pageAnswer.status).toBe(302);
    expect(pageAnswer.headers.get('location')).toMatch(/^\/admin\/login\?next=/);
    expect(await pageAnswer.text()).not.toContain('participants-table');
    const openapi = await fetch(`${consoleApp.url}/admin/openapi.json`);
    expect(openapi.status).toBe(401);
  });

  it('When an operator opens the participants page, then the participant who pushed is listed with their trips', async () => {
    // The participant index refreshes on its timer (participants_refresh_s); the test asks for it now.
    await consoleApp.composed.refreshParticipants();
    await page.goto(`${consoleApp.url}/admin/`);
    const row = page.getByTestId('participant-row').filter({ hasText: TOKEN.slice(0, 4) });
    await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => row.innerText()).toContain('8');
    // The last trip ends at 19:32 in California, 02:32 the next day in UTC (the browser's zone here): shown and
    // linked as the participant's local time and day, where the day page finds the trips.
    expect(await row.innerText()).toMatch(/2015-08-27 19:3\d:\d\d \(UTC−07:00\)/);
    await shoot('participants');
    await row.getByRole('link').first().click();
    await expect.poll(() => page.getByTestId('trip-row').count(), { timeout: 20_000 }).toBe(8);
    expect(new URL(page.url()).searchParams.get('date')).toBe(DAY_OF[DAY]);
  });

  it('When the operator opens aug-27, then its 8 trips are drawn on the map and listed at e-mission’s times', async () => {
    await page.goto(`${consoleApp.url}/admin/day.html?user=${userId}&date=${DAY_OF[DAY]}`);
    await expect.poll(() => page.getByTestId('trip-row').count(), { timeout: 20_000 }).toBe(8);
    expect(await page.getByTestId('trip-lines-count').textContent()).toBe('8');
    // No tile server is configured here: the page says how to set one rather than leaving the tracks on grey.
    expect(await page.getByTestId('no-base-map').isVisible()).toBe(true);
    expect(await page.locator('path.trip-line').count()).toBeGreaterThanOrEqual(8);
    const starts = await page.getByTestId('trip-row').getByTestId('trip-start').allTextContents();
    const expected = loadGroundTruth(DAY)
      .map((t) => String(t.properties['start_fmt_time']))
      .sort()
      .map(hhmm);
    expect(starts).toHaveLength(expected.length);
    // Trips match e-mission's within 60 s, so a shown minute is e-mission's or its neighbour.
    starts.forEach((s, i) => expect(Math.abs(minutes(s) - minutes(expected[i]!))).toBeLessThanOrEqual(1));
    // The day's completeness, drawn from what the converter recorded: one strip cell per quarter-hour judged.
    const quality = await page.request.get(
      `${consoleApp.url}/admin/api/users/${userId}/quality?from=${DAY_OF[DAY]}&to=${DAY_OF[DAY]}`,
    );
    expect(quality.status()).toBe(200);
    const [scored] = (await quality.json()).days;
    expect(scored.localDate).toBe(DAY_OF[DAY]);
    expect(scored.quarters.located).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('day-quality').isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await page.getByTestId('day-score').textContent()).toBe(`${Math.round(scored.score * 100)} %`);
    expect(await page.getByTestId('day-strip').locator('span').count()).toBe(scored.considered);
    expect(await page.getByTestId('day-gaps').locator('li').count()).toBe(scored.gaps.length);
    await shoot('day');
  });

  it('When the operator replays the dead letters, then the count falls to zero', async () => {
    await page.goto(`${consoleApp.url}/admin/dead-letters.html`);
    await expect.poll(() => page.getByTestId('dead-letter-total').innerText(), { timeout: 20_000 }).toContain('3');
    await shoot('dead-letters');
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('replay-all').click();
    await expect
      .poll(() => page.getByTestId('job-progress').getAttribute('data-state'), { timeout: 120_000 })
      .toBe('done');
    await expect.poll(() => page.getByTestId('dead-letter-total').innerText(), { timeout: 30_000 }).toMatch(/\b0\b/);
  });

  it('When the operator resets the participant, then a dry run shows the plan and the reset runs to done', async () => {
    await page.goto(`${consoleApp.url}/admin/reset.html`);
    await page.getByTestId('reset-user').fill(userId);
    await page.getByTestId('reset-dry-run').click();
    await expect
      .poll(() => page.getByTestId('reset-plan').innerText(), { timeout: 20_000 })
      .toContain('replacing 8 trips');
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('reset-run').click();
    const progress = page.getByTestId('job-progress');
    await expect.poll(() => progress.getAttribute('data-state'), { timeout: 120_000 }).toBe('done');
    expect(await progress.getAttribute('data-done')).toBe('1');
    expect(await page.getByTestId('job-lines').innerText()).toContain('rebuilt 8 trips');
    await shoot('reset');
  });

  it('When the operator opens the pipeline, summary and tokens pages, then each shows its data', async () => {
    await page.goto(`${consoleApp.url}/admin/pipeline.html`);
    await expect.poll(() => page.getByTestId('pipeline-table').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await shoot('pipeline');
    await page.goto(`${consoleApp.url}/admin/summary.html`);
    await expect.poll(() => page.getByTestId('summary-trips-chart').count(), { timeout: 20_000 }).toBe(1);
    await shoot('summary');
    await page.goto(`${consoleApp.url}/admin/tokens.html`);
    await page.getByTestId('token-program').fill('e2e');
    await page.getByTestId('token-create').click();
    await expect.poll(() => page.getByTestId('token-qr').count(), { timeout: 20_000 }).toBe(1);
    await shoot('tokens');
  });

  it('When the phone says its tracking is off, then the radar lists the participant under that rule, not as silent', async () => {
    const now = Math.round(Date.now() / 1000);
    await pushEntries(pipeline.gw, TOKEN, [
      {
        metadata: {
          key: 'statemachine/transition',
          platform: 'android',
          type: 'message',
          write_ts: now,
          time_zone: 'America/Los_Angeles',
        },
        data: { currState: 'local.state.tracking_stopped', transition: 'local.transition.stop_tracking', ts: now },
      },
    ]);
    const radar = async (query: string) => {
      const res = await page.request.get(`${consoleApp.url}/admin/api/radar?${query}`);
      expect(res.status(), await res.text()).toBe(200);
      return (await res.json()) as { rows: { userId: string; rule: string }[] };
    };
    // The converter stores the transition in its own time; the index shows it from its next refresh, asked for here.
    await expect
      .poll(
        async () => {
          await consoleApp.composed.refreshParticipants();
          return (await radar('rule=tracking_off')).rows.map((r) => [r.userId, r.rule]);
        },
        { timeout: 30_000 },
      )
      .toEqual([[userId, 'tracking_off']]);

    await page.goto(`${consoleApp.url}/admin/radar.html?rule=tracking_off`);
    const row = page.getByTestId('radar-row');
    await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
    expect(await row.getAttribute('data-user-id')).toBe(userId);
    expect(await row.getAttribute('data-rule')).toBe('tracking_off');
    expect(await page.getByTestId('radar-count-tracking_off').innerText()).toBe('1');
    expect(await page.getByRole('button', { name: /^Tracking off/ }).getAttribute('aria-pressed')).toBe('true');
    await shoot('radar');
    // Its last trip's local day, not the day tracking stopped: the day the operator can look at.
    await row.getByRole('link').click();
    await expect.poll(() => page.getByTestId('trip-row').count(), { timeout: 20_000 }).toBe(8);
    expect(new URL(page.url()).searchParams.get('date')).toBe(DAY_OF[DAY]);

    // Kept to another subgroup, the radar counts and lists nobody; the field shows what the URL asked.
    await page.goto(`${consoleApp.url}/admin/radar.html?rule=tracking_off&subgroup=elsewhere`);
    await page.waitForSelector('body[data-ready]', { timeout: 20_000 });
    expect(await page.getByTestId('radar-subgroup').inputValue()).toBe('elsewhere');
    expect(await page.getByTestId('radar-count-tracking_off').innerText()).toBe('0');
    expect(await page.getByTestId('radar-row').count()).toBe(0);

    // The participant pushed a minute ago: an hour's silence does not find them.
    await page.goto(`${consoleApp.url}/admin/radar.html?rule=silent&hours=1`);
    await page.waitForSelector('body[data-ready]', { timeout: 20_000 });
    expect(await page.locator('#hours').inputValue()).toBe('1');
    expect(await page.locator(`[data-testid="radar-row"][data-user-id="${userId}"]`).count()).toBe(0);
  });

  it('When the operator creates a program on the Programs page, then it is listed and shown with its history', async () => {
    await page.goto(`${consoleApp.url}/admin/programs.html`);
    const form = page.locator('#create-form');
    await form.locator('input[name="program"]').fill('e2e');
    await form.locator('textarea[name="document"]').fill('{"version": 1, "opcode": {"subgroups": ["default"]}}');
    await page.getByTestId('program-create').click();
    await expect.poll(() => page.getByTestId('program-title').innerText(), { timeout: 20_000 }).toBe('e2e: version 1');
    expect(await page.getByTestId('program-row').count()).toBe(1);
    expect(await page.getByTestId('program-history').locator('tbody tr').count()).toBe(1);
    await shoot('programs');
  });
});
