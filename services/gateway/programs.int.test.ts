import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../../test/helpers/browser.js';
import { createConsoleTokensTable, createProgramConfigsTable } from '../../shared/tables/index.js';
import { createProgramManager, type ProgramManager } from '../../shared/programs/manage-programs.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { rawExchange } from '../../test/helpers/raw-http.js';
import { topicSize } from '../../test/helpers/read-topic.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';

let env: TestEnv;
let gw: RunningGateway;
let programs: ProgramManager;

const EBIKE = {
  url_abbreviation: 'ebike',
  version: 3,
  min_app_version: '1.9.0',
  intro: { program_or_study: 'program', translated_text: { en: { deployment_name: 'E-bike city' } } },
  label_options: { MODE: [{ value: 'e-bike', baseMode: 'E_BIKE', met_equivalent: 'BICYCLING', kgCo2PerKm: 0.007 }] },
  opcode: { autogen: true, subgroups: ['regular', 'paused'], suspended_subgroups: ['paused'] },
};
const COMMUTE = { version: 1, intro: { program_or_study: 'program' }, opcode: { autogen: false } };

async function save(program: string, doc: object) {
  return programs.create({ program, document: JSON.stringify(doc), by: 'operator@itinera.test' });
}

beforeAll(async () => {
  // Gateways read programs again every 200 ms here, so a saved change shows in a few calls.
  env = await createTestEnv({ WEBSERVER_PROGRAM_REFRESH_S: '0.2' });
  programs = createProgramManager(createProgramConfigsTable(env.cql));
  gw = await startGateway(env);
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

function location(writeTs: number) {
  return {
    metadata: {
      key: 'background/location',
      platform: 'android',
      type: 'sensor-data',
      write_ts: writeTs,
      time_zone: 'UTC',
    },
    data: { latitude: 39.59, longitude: -104.98, accuracy: 20, ts: writeTs - 1 },
  };
}

async function put(token: string, extra: Record<string, unknown> = {}) {
  return gw.post('/usercache/put', { user: token, phone_to_server: [location(Date.now() / 1000)], ...extra });
}

async function registered(token: string) {
  const res = await gw.post('/profile/create', { user: token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('a deployment that serves no program', () => {
  it('When an OpenPATH token registers and puts with its config version, then it works as before and the answer is {}', async () => {
    const token = 'nrelop_anything_default_Implicit0123456789abcdef';
    await registered(token);
    const res = await put(token, { deployment_config_version: 1, app_version: '2.1.3' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });
});

describe('programs served', () => {
  beforeAll(async () => {
    await save('ebike', EBIKE);
    await save('commute', COMMUTE);
    // The gateway read "no programs" above; wait until it has read them.
    await waitFor(async () =>
      (await gw.post('/profile/create', { user: 'nrelop_nowhere_default_x1' })).status === 403 ? true : undefined,
    );
  });

  it('When a token names a program the deployment does not serve, then registration is refused with the reason', async () => {
    const res = await gw.post('/profile/create', { user: 'nrelop_nowhere_default_Unknown0123456789' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('unknown program "nowhere"');
  });

  it("When a token names a subgroup its program lacks (another program's, or none), then it is refused", async () => {
    for (const token of ['nrelop_ebike_default_abc123', 'nrelop_ebike_commuters_abc123', 'nrelop_ebike_regular']) {
      const res = await gw.post('/profile/create', { user: token });
      expect(res.status, token).toBe(403);
      expect(res.body.error.code).toBe('AUTH_FORBIDDEN');
    }
  });

  it('When a program makes its tokens on the phone, then any well-formed token of it registers, testers too', async () => {
    await registered('nrelop_ebike_regular_Phone0123456789abcdef');
    await registered('nrelop_ebike_regular_test_Tester0123456789abcdef');
  });

  it('When a program takes only issued tokens, then one not issued is refused and one issued registers', async () => {
    const refused = await gw.post('/profile/create', { user: 'nrelop_commute_default_Forged0123456789abcdef' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('program commute takes only the tokens its operators issued');
    const issued = 'nrelop_commute_default_Issued0123456789abcdef';
    await createConsoleTokensTable(env.cql).issue([issued], 'commute', 'default', 'operator@itinera.test');
    await registered(issued);
  });

  it('When a phone holds an older configuration, then the put answer carries the whole configuration', async () => {
    const token = 'nrelop_ebike_regular_Outdated0123456789abcdef';
    await registered(token);
    const res = await put(token, { deployment_config_version: 2, app_version: '2.1.3' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deployment_config: EBIKE });
  });

  it('When the phone is up to date, sends no versions (iOS silent push) or its app is too old, then the answer is {}', async () => {
    const token = 'nrelop_ebike_regular_Current0123456789abcdef';
    await registered(token);
    for (const extra of [
      { deployment_config_version: 3, app_version: '2.1.3' },
      {},
      { deployment_config_version: 2, app_version: '1.8.0' },
      { deployment_config_version: 'two', app_version: 7 },
    ]) {
      const res = await put(token, extra);
      expect(res.status, JSON.stringify(extra)).toBe(200);
      expect(res.body, JSON.stringify(extra)).toEqual({});
    }
  });

  it('When a subgroup is suspended, then its put is answered 200 {} and nothing reaches the pipeline', async () => {
    const token = 'nrelop_ebike_paused_Suspended0123456789abcdef';
    await registered(token);
    const before = await topicSize(env, 'usercache');
    const res = await put(token, { deployment_config_version: 3, app_version: '2.1.3' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    // A 200 means acknowledged: had anything been published, the topic would already hold it.
    expect(await topicSize(env, 'usercache')).toBe(before);
    expect((await put('nrelop_ebike_regular_Current0123456789abcdef')).status).toBe(200);
    expect(await topicSize(env, 'usercache')).toBe(before + 1);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/itinera_gateway_entries_ignored_total\{program="ebike"\} 1\b/);
  });

  it('When a token outside the opcode grammar is used, then the deployment auth mode still decides', async () => {
    await registered('someone@example.org');
    expect((await put('someone@example.org', { deployment_config_version: 1 })).body).toEqual({});
  });

  it('When the operator saves a new version, then phones on the old one get it in their next put', async () => {
    const token = 'nrelop_ebike_regular_Upgrade0123456789abcdef';
    await registered(token);
    expect((await put(token, { deployment_config_version: 3, app_version: '2.1.3' })).body).toEqual({});
    const next = { ...EBIKE, version: 4, intro: { ...EBIKE.intro, program_or_study: 'study' } };
    await programs.update({ program: 'ebike', document: JSON.stringify(next), by: 'operator@itinera.test' });
    const reply = await waitFor(
      async () => {
        const res = await put(token, { deployment_config_version: 3, app_version: '2.1.3' });
        return res.body.deployment_config ? res.body : undefined;
      },
      10_000,
      'the new version in a put answer',
    );
    expect(reply).toEqual({ deployment_config: next });
  });

  it('When a program is closed, then it takes no one new and no new data, labels or profile changes, says why, and its data stays readable', async () => {
    const member = 'nrelop_ebike_regular_Closing0123456789abcdef';
    await registered(member);
    const current = JSON.parse((await programs.show('ebike')).document);
    const closed = {
      ...current,
      version: current.version + 1,
      itinera: { closed: true, closed_message: 'The study ended.' },
    };
    await programs.update({ program: 'ebike', document: JSON.stringify(closed), by: 'operator@itinera.test' });
    const refused = await waitFor(
      async () => {
        const res = await put(member);
        return res.status === 410 ? res : undefined;
      },
      10_000,
      'puts refused',
    );
    expect(refused.body.error).toMatchObject({ code: 'PROGRAM_CLOSED', message: 'The study ended.' });
    const before = await topicSize(env, 'usercache');
    expect((await put(member)).status).toBe(410);
    expect(await topicSize(env, 'usercache')).toBe(before);
    const joining = await gw.post('/profile/create', { user: 'nrelop_ebike_regular_Late0123456789abcdef' });
    expect(joining.status).toBe(403);
    expect(joining.body.error.message).toBe('The study ended.');
    const joinPage = await fetch(`${gw.url}/join/ebike`);
    expect(await joinPage.text()).toContain('<p>The study ended.</p>');
    const labelled = await gw.post('/customlabel/insert', {
      user: member,
      inserted_label: { key: 'mode', label: 'scooter' },
    });
    const profileChange = await gw.post('/profile/update', { user: member, update_doc: { curr_platform: 'ios' } });
    expect([labelled.status, profileChange.status]).toEqual([410, 410]);
    expect((await gw.post('/customlabel/get', { user: member, keys: ['mode'] })).body).toEqual({ mode: [] });
    expect((await gw.post('/profile/get', { user: member })).status).toBe(200);
    expect((await gw.post('/pipeline/get_complete_ts', { user: member })).status).toBe(200);
    // Reopened, it takes data again.
    const reopened = { ...closed, version: closed.version + 1, itinera: { closed: false } };
    await programs.update({ program: 'ebike', document: JSON.stringify(reopened), by: 'operator@itinera.test' });
    await waitFor(async () => ((await put(member)).status === 200 ? true : undefined), 10_000, 'puts taken again');
  });

  it('When the configuration is fetched at its stable address, then it is served, with its version as ETag', async () => {
    const res = await fetch(`${gw.url}/programs/commute/config.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual(COMMUTE);
    // A bare request: fetch adds "Cache-Control: no-cache" to conditional requests, which no cache answers 304.
    const again = await rawExchange(
      gw.url,
      `GET /programs/commute/config.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${res.headers.get('etag')}\r\nConnection: close\r\n\r\n`,
    );
    expect(again.status).toBe(304);
    expect((await fetch(`${gw.url}/programs/nowhere/config.json`)).status).toBe(404);
  });

  it('When a study without opcode is joined, then its page makes a default token, as its phones may make their own', async () => {
    await save('survey', { version: 1, intro: { program_or_study: 'study' } });
    const page = await waitFor(async () => {
      const res = await fetch(`${gw.url}/join/survey`);
      return res.status === 200 ? res.text() : undefined;
    });
    const token = /id="token">([^<]+)</.exec(page)?.[1] ?? '';
    expect(token).toMatch(/^nrelop_survey_default_[A-Za-z0-9]{32}$/);
    await registered(token);
  });
});

const hasBrowser = browserAvailable();

describe.skipIf(!hasBrowser)("a program's join page, in a browser", () => {
  let browser: Browser;
  beforeAll(async () => {
    const walkers = {
      version: 1,
      intro: { translated_text: { en: { deployment_name: 'Walkers <of> the city' } } },
      opcode: { autogen: true, subgroups: ['north', 'south', 'closed'], suspended_subgroups: ['closed'] },
    };
    await save('walkers', walkers);
    await waitFor(async () => ((await fetch(`${gw.url}/join/walkers`)).status === 200 ? true : undefined));
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('When a participant picks a group, then the page shows a token of it as a QR code and app links, and it registers', async () => {
    const page = await browser.newPage();
    await page.goto(`${gw.url}/join/walkers`);
    expect(await page.locator('h1').textContent()).toBe('Walkers <of> the city');
    // The suspended subgroup is not offered.
    expect(await page.locator('a.button').allTextContents()).toEqual(['north', 'south']);
    await page.locator('a.button', { hasText: 'south' }).click();
    const token = (await page.locator('#token').textContent()) ?? '';
    expect(token).toMatch(/^nrelop_walkers_south_[A-Za-z0-9]{32}$/);
    expect(await page.locator('svg').count()).toBe(1);
    expect(await page.locator('#emission-link').getAttribute('href')).toBe(`emission://login_token?token=${token}`);
    expect(await page.locator('#openpath-link').getAttribute('href')).toBe(`nrelopenpath://login_token?token=${token}`);
    await page.reload();
    expect(await page.locator('#token').textContent()).not.toBe(token);
    await registered(token);
    await page.goto(`${gw.url}/join/walkers?sub_group=north&tester=true`);
    expect(await page.locator('#token').textContent()).toMatch(/^nrelop_walkers_north_test_[A-Za-z0-9]{32}$/);
    await page.close();
  });

  it('When a program takes only issued tokens, then its join page makes none and says to ask for an invitation', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${gw.url}/join/commute`);
    expect(res?.headers()['cache-control']).toBe('no-store');
    expect(await page.locator('body').textContent()).toContain('admits participants by invitation');
    expect(await page.locator('#token').count()).toBe(0);
    expect((await fetch(`${gw.url}/join/nowhere`)).status).toBe(404);
    await page.close();
  });
});
