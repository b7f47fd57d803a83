import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../../shared/http/index.js';
import { rawExchange } from '../../../test/helpers/raw-http.js';
import {
  ConfigRefusal,
  type DeploymentConfig,
  parseDeploymentConfig,
} from '../../../shared/programs/domain/deployment-config.js';
import type { LabelTripFact } from '../domain/label-metrics.js';
import type { GatewayState } from '../gateway-state.js';
import type { ProgramGate } from '../stores.js';
import { type PublicDashboardDeps, publicDashboardRoutes } from './public-routes.js';

/*
 * The dashboard's routes on a Koa app of their own, over programs, participants and trips held in memory: what each
 * program answers, what the answers say about caching, and how often the trips are read.
 */

const DATE = '2016-08-10';
const NOW = Date.UTC(2026, 4, 6, 12);

function config(fields: Record<string, unknown>): DeploymentConfig {
  const parsed = parseDeploymentConfig(JSON.stringify({ version: 1, ...fields }));
  if (parsed instanceof ConfigRefusal) throw new TypeError(parsed.message);
  return parsed;
}

const dashboard = { public_dashboard: { end_date: '2016-08-14', weeks: 2 } };
const programs = new Map<string, DeploymentConfig>([
  ['ride', config({ itinera: dashboard })],
  ['testers', config({ itinera: dashboard, metrics: { include_test_users: true } })],
  ['quiet', config({ itinera: { public_dashboard: { enabled: false } } })],
  ['hidden', config({ itinera: { public_aggregates: false } })],
]);

const trip = (userId: string, modeConfirm: string): LabelTripFact & { answeredSurvey: undefined } => ({
  userId,
  localDate: DATE,
  startTs: Date.UTC(2016, 7, 10, 18) / 1000,
  modeConfirm,
  purposeConfirm: 'work',
  replacedModeConfirm: 'UNLABELED',
  mode: modeConfirm,
  distance: 1000,
  duration: 600,
  responded: true,
  answeredSurvey: undefined,
});

/** Two riders walk; a third rider and a tester of the same program take the bus; a member of another program walks. */
const TRIPS = [trip('r1', 'walk'), trip('r2', 'walk'), trip('r3', 'bus'), trip('tester', 'bus'), trip('x', 'walk')];
const MEMBERS: Record<string, string[]> = { ride: ['r1', 'r2', 'r3'], testers: ['r1', 'r2', 'r3', 'tester'] };

let clock = NOW;
let scans = 0;
const askedTesters: boolean[] = [];

function deps(overrides: Partial<PublicDashboardDeps['rules']> = {}): PublicDashboardDeps {
  return {
    programs: {
      config: async (program: string) => {
        const found = programs.get(program);
        return found ? { program, config: found } : undefined;
      },
    } as Partial<ProgramGate> as ProgramGate,
    cohorts: {
      filter: async (program, { includeTesters }) => {
        askedTesters.push(includeTesters);
        const members = (program !== undefined && MEMBERS[program]) || [];
        return (userId) => members.includes(userId) && (includeTesters || userId !== 'tester');
      },
    },
    diary: {
      scanLabelTrips: async (dates, visit) => {
        scans += 1;
        for (const t of TRIPS) if (dates.includes(t.localDate)) visit(t);
      },
    } as Partial<PublicDashboardDeps['diary']> as PublicDashboardDeps['diary'],
    // Accounts older than any trip here: the history rule counts every one.
    users: {
      findByUuid: async (uuid) => ({ uuid, userEmail: uuid, oid: uuid, createTs: new Date(0), updateTs: new Date(0) }),
    },
    rules: {
      auth: 'skip',
      host: '127.0.0.1',
      aggregateCallAuth: 'no_auth',
      aggregateMinUsers: 2,
      aggregateMinHistoryDays: 14,
      metricsMaxSections: 1000,
      ...overrides,
    },
    now: () => clock,
  };
}

async function serve(d: PublicDashboardDeps) {
  const app = new Koa<GatewayState>();
  app.use(errorHandler({ stdout: new PassThrough() }));
  app.use(publicDashboardRoutes(d).routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let gateway: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  gateway = await serve(deps());
});
afterAll(async () => gateway.close());

const get = (path: string) => fetch(gateway.url + path);

/** The status of a conditional GET. A bare request: fetch adds "Cache-Control: no-cache" to one, which no cache answers 304. */
async function revalidated(path: string, etag: string | null): Promise<number> {
  const head = `GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`;
  return (await rawExchange(gateway.url, head)).status;
}

describe('a program’s public dashboard', () => {
  it('When the page is asked for, then it is served with a strict policy and names its script and stylesheet by version', async () => {
    const res = await get('/public/ride/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    const page = await res.text();
    const script = /src="\.\.\/dashboard\.js\?v=([\w-]+)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    expect(page).toMatch(/href="\.\.\/dashboard\.css\?v=[\w-]+"/);
    expect(page).not.toMatch(/<script>|<style>|style="/);

    const versioned = await get(`/public/dashboard.js?v=${script}`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bare = await get('/public/dashboard.css');
    expect(bare.headers.get('cache-control')).toBe('no-cache');
    expect(await revalidated('/public/dashboard.css', bare.headers.get('etag'))).toBe(304);
  });

  it('When a program turns its dashboard off, hides its aggregates, or does not exist, then all answer the same 404', async () => {
    const answers = new Set<string>();
    for (const program of ['quiet', 'hidden', 'nowhere'])
      for (const path of [`/public/${program}/`, `/public/${program}/aggregates.json`]) {
        const res = await get(path);
        expect(res.status, path).toBe(404);
        answers.add(await res.text());
      }
    expect([...answers]).toEqual([
      JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no public dashboard here' } }),
    ]);
  });

  it('When aggregates are not served on this deployment, then no dashboard is either', async () => {
    const closed = await serve(deps({ auth: 'skip', host: '0.0.0.0' }));
    try {
      expect((await fetch(`${closed.url}/public/ride/`)).status).toBe(404);
      expect((await fetch(`${closed.url}/public/ride/aggregates.json`)).status).toBe(404);
    } finally {
      await closed.close();
    }
  });

  it('When the figures are asked for, then they count the program’s participants only, testers as the program says', async () => {
    const ride = await (await get('/public/ride/aggregates.json')).json();
    expect(ride.trips.by_mode).toEqual([{ week: '2016-08-08', label: 'walk', value: 2 }]);
    const testers = await (await get('/public/testers/aggregates.json')).json();
    expect(testers.trips.by_mode).toEqual([
      { week: '2016-08-08', label: 'bus', value: 2 },
      { week: '2016-08-08', label: 'walk', value: 2 },
    ]);
    expect(askedTesters.slice(-2)).toEqual([false, true]);
  });

  it('When the figures are asked again within five minutes, then they are not read again, and max-age counts down', async () => {
    const first = await get('/public/ride/aggregates.json');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    const before = scans;
    clock += 60_000;
    const later = await get('/public/ride/aggregates.json');
    expect(scans).toBe(before);
    const maxAge = (res: Response) => Number(/^public, max-age=(\d+)$/.exec(res.headers.get('cache-control')!)?.[1]);
    expect(maxAge(later)).toBe(maxAge(first) - 60);
    expect(await revalidated('/public/ride/aggregates.json', later.headers.get('etag'))).toBe(304);
    clock += 300_000;
    await get('/public/ride/aggregates.json');
    expect(scans).toBe(before + 1);
  });
});
