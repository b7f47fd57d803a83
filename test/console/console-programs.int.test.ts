import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { createCassandraTripStore } from '../../services/trip-builder/store/cassandra-trip-store.js';
import {
  createConsoleTokensTable,
  createLabelTripMetricsTable,
  createParticipantActivityTable,
  createSectionMetricsTable,
  createUsersTable,
} from '../../shared/tables/index.js';
import { State } from '../../shared/events/index.js';
import { createErrorTimeseries, type DeadLetter } from '../../shared/timeseries/index.js';
import { startConsole, type RunningConsole } from '../helpers/console.js';
import { loginWithFetch, type ConsoleLogin } from '../helpers/console-login.js';
import { startConverter } from '../helpers/pipeline.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

/*
 * One deployment serving three programs (alpha, beta, gamma) and participants outside any program, with the real
 * console on the real servers. alpha's admin sees and acts on alpha only: participants, days, figures, the pipeline's
 * users, dead letters and their replay, resets, tokens and the program's configuration; a deployment operator sees
 * everything. Each program's data differs in its counts, so a leak shows as a wrong number, not only as a wrong row.
 */

const ALPHA_ADMIN = 'alpha-admin@itinera.local';
const BETA_ADMIN = 'beta-admin@itinera.local';
const random = () => randomUUID().replace(/-/g, '');
const PARTICIPANTS = {
  alpha: [`nrelop_alpha_default_${random()}`, `nrelop_alpha_car_${random()}`],
  beta: [`nrelop_beta_default_${random()}`],
  gamma: [`nrelop_gamma_default_${random()}`],
  implicit: [`someone-${random().slice(0, 8)}@example.org`],
};
type Group = keyof typeof PARTICIPANTS;
/** Dead letters each participant of a group has. */
const LETTERS: Record<Group, number> = { alpha: 2, beta: 1, gamma: 1, implicit: 1 };
const DOCUMENTS = {
  alpha: { version: 1, opcode: { autogen: false, subgroups: ['default', 'car'] } },
  beta: { version: 1 },
  gamma: { version: 1, opcode: { autogen: true } },
};
const REFUSED = ['nrelop_alpha_nope_abc', 'nrelop_beta_default_typo', 'typo@example.org'];

let env: TestEnv;
let converter: RunningConverter;
let consoleApp: RunningConsole;
const ids: Record<Group, string[]> = { alpha: [], beta: [], gamma: [], implicit: [] };
const login = {} as Record<'operator' | 'reader' | 'alpha' | 'beta', ConsoleLogin>;

/** A dead letter the converter refused then and converts now (a state-machine transition). */
function letter(userId: string, group: Group, i: number): DeadLetter {
  const writeTs = 1440700000 + i;
  return {
    user_id: userId,
    key: 'statemachine/transition',
    type: 'message',
    write_ts: writeTs,
    reason: `${group}: a converter bug, since fixed`,
    source_topic: 'usercache',
    source_partition: 0,
    source_offset: i,
    failed_ts: Date.now() / 1000,
    metadata_json: JSON.stringify({
      key: 'statemachine/transition',
      platform: 'android',
      type: 'message',
      write_ts: writeTs,
      time_zone: 'UTC',
    }),
    data_json: JSON.stringify({
      currState: 'local.state.waiting_for_trip_start',
      transition: 'local.transition.stopped_moving',
    }),
  };
}

/** Everyone's data: a participant each, their pushes, a trip and section today, a lagging resume point, letters. */
async function seed(): Promise<void> {
  const users = createUsersTable(env.cql);
  const activity = createParticipantActivityTable(env.cql);
  const trips = createCassandraTripStore(env.cql);
  const errors = createErrorTimeseries(env.cql);
  const labelTrips = createLabelTripMetricsTable(env.cql);
  const sections = createSectionMetricsTable(env.cql);
  const now = Math.floor(Date.now() / 1000);
  const today = new Date(now * 1000).toISOString().slice(0, 10);
  for (const [group, tokens] of Object.entries(PARTICIPANTS) as [Group, string[]][]) {
    for (const token of tokens) {
      const userId = (await users.register(token)).user.uuid;
      ids[group].push(userId);
      // The last push after the resume point was saved, 30 hours after it: the participant is behind.
      await trips.saveResumePoint(userId, { fromTs: now - 30 * 3600, place: undefined });
      await activity.record([{ userId, firstPushTs: now - 86_400, lastPushTs: now + 3600, platform: 'android' }]);
      // Tracking turned off two hours ago; a batch of older entries (tracking on) written afterwards must not win.
      const sensing = (state: number, ts: number) => ({
        userId,
        lastDataTs: ts,
        lastLocationTs: ts,
        lastState: { state, ts },
      });
      await activity.record([], [sensing(State.TRACKING_STOPPED, now - 7200)]);
      await activity.record([], [sensing(State.ONGOING_TRIP, now - 9000)]);
      for (let i = 0; i < LETTERS[group]; i += 1) await errors.insert(letter(userId, group, i));
      await labelTrips.upsertDay(userId, today, [
        {
          userId,
          localDate: today,
          startTs: now - 600,
          modeConfirm: `${group}_walk`,
          purposeConfirm: 'home',
          replacedModeConfirm: '',
          mode: 'walk',
          distance: 1000,
          duration: 600,
          responded: true,
          answeredSurvey: undefined,
        },
      ]);
      const section = sections.insert({
        userId,
        startTs: now - 600,
        timeZone: 'UTC',
        mode: 'WALKING',
        distance: 1000,
        duration: 600,
      });
      await env.cql.write(section.query, section.params);
    }
  }
  const tokens = createConsoleTokensTable(env.cql);
  for (const token of REFUSED) await tokens.recordRefusal(token, 'unknown token', now);
}

async function call(who: ConsoleLogin, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(
    `${consoleApp.url}/admin/api/${path}`,
    body === undefined
      ? { headers: { cookie: who.cookie } }
      : {
          method: 'POST',
          headers: { cookie: who.cookie, 'x-csrf-token': who.csrfToken, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
  );
  return { status: res.status, body: await res.json() };
}

const finished = (who: ConsoleLogin, jobId: string) =>
  waitFor(
    async () => {
      const job = (await call(who, `jobs/${jobId}`)).body;
      return job.state === 'running' ? undefined : job;
    },
    150_000,
    `job ${jobId}`,
  );

beforeAll(async () => {
  env = await createTestEnv({
    CONSOLE_OIDC_PROGRAM_ADMIN_EMAILS: JSON.stringify({ alpha: [ALPHA_ADMIN], beta: [BETA_ADMIN] }),
  });
  await seed();
  converter = await startConverter(env);
  consoleApp = await startConsole(env);
  login.operator = await loginWithFetch(consoleApp.url, 'operator@itinera.local');
  login.reader = await loginWithFetch(consoleApp.url, 'reader@itinera.local');
  login.alpha = await loginWithFetch(consoleApp.url, ALPHA_ADMIN);
  login.beta = await loginWithFetch(consoleApp.url, BETA_ADMIN);
  for (const [program, document] of Object.entries(DOCUMENTS)) {
    const created = await call(login.operator, 'programs', { program, document: JSON.stringify(document) });
    expect(created.status, program).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await consoleApp?.close();
  await converter?.stop();
  await env?.dispose();
});

describe('the console of a deployment serving several programs', () => {
  it('When alpha’s admin lists participants, then only alpha’s show, through searches and totals; operators and readers see all', async () => {
    expect((await call(login.alpha, 'me')).body).toMatchObject({
      email: ALPHA_ADMIN,
      role: 'operator',
      programs: ['alpha'],
    });
    expect((await call(login.operator, 'me')).body.programs).toBeNull();

    const mine = (await call(login.alpha, 'participants')).body;
    expect(mine.total).toBe(2);
    expect(mine.rows.map((r: any) => r.userId).sort()).toEqual([...ids.alpha].sort());
    expect(mine.rows.every((r: any) => r.program === 'alpha')).toBe(true);
    // An operator's search runs inside tokens: still only alpha's.
    expect((await call(login.alpha, 'participants?q=nrelop')).body.total).toBe(2);
    expect((await call(login.alpha, `participants?q=${PARTICIPANTS.beta[0]}`)).body.total).toBe(0);
    expect((await call(login.alpha, `participants?q=${ids.gamma[0]}`)).body.total).toBe(0);
    expect((await call(login.alpha, `participants/${ids.beta[0]}/reveal-token`, {})).status).toBe(404);
    expect((await call(login.alpha, `participants/${ids.alpha[0]}/reveal-token`, {})).body.token).toBe(
      PARTICIPANTS.alpha[0],
    );

    for (const who of [login.operator, login.reader]) expect((await call(who, 'participants')).body.total).toBe(5);
    expect((await call(login.operator, 'participants?q=nrelop_beta')).body.rows[0].userId).toBe(ids.beta[0]);
  });

  it('When alpha’s admin opens the radar, then only alpha’s phones with tracking off are listed, and the newest state won', async () => {
    const mine = (await call(login.alpha, 'radar?rule=tracking_off')).body;
    expect(mine.counts.tracking_off).toBe(2);
    expect(mine.rows.map((r: any) => r.userId).sort()).toEqual([...ids.alpha].sort());
    expect(mine.rows.every((r: any) => r.rule === 'tracking_off' && r.token.includes('…'))).toBe(true);
    expect((await call(login.operator, 'radar?rule=tracking_off')).body.total).toBe(5);
    // Everyone pushed within the hour (the seed's last push is in the future): nobody is silent.
    expect((await call(login.operator, 'radar?rule=silent&hours=1')).body.total).toBe(0);
  });

  it('When alpha’s admin asks for another program’s participant, then the answer is the 404 of a uuid nobody has', async () => {
    const date = new Date().toISOString().slice(0, 10);
    expect((await call(login.alpha, `users/${ids.alpha[1]}/days/${date}`)).status).toBe(200);
    const unknown = randomUUID();
    const answers = await Promise.all(
      [ids.beta[0]!, ids.implicit[0]!, unknown].map(async (id) => {
        const { status, body } = await call(login.alpha, `users/${id}/days/${date}`);
        return [status, JSON.stringify(body).replace(id, '<id>')];
      }),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]![0]).toBe(404);
    expect((await call(login.alpha, `users/${ids.gamma[0]}/section-points?start=0&end=1`)).status).toBe(404);

    expect((await call(login.operator, `users/${ids.beta[0]}/days/${date}`)).status).toBe(200);
    expect((await call(login.operator, `users/${unknown}/days/${date}`)).status).toBe(404);
  });

  it('When alpha’s admin opens the summary and the pipeline, then the figures and the participants behind are alpha’s', async () => {
    const trips = (s: any) => s.perDay.reduce((sum: number, d: any) => sum + d.trips, 0);
    const alpha = (await call(login.alpha, 'summary?days=2')).body;
    expect(trips(alpha)).toBe(2);
    expect(alpha.distanceByLabel).toEqual({ alpha_walk: 2000 });
    expect(alpha.distanceByMode).toEqual({ WALKING: 2000 });
    const all = (await call(login.operator, 'summary?days=2')).body;
    expect(trips(all)).toBe(5);
    expect(all.distanceByMode).toEqual({ WALKING: 5000 });

    // The resume-point scan starts with the console; its first answer is awaited here.
    await waitFor(async () => ((await call(login.operator, 'pipeline')).body.behind.count === 5 ? true : undefined));
    const behind = (await call(login.alpha, 'pipeline')).body.behind;
    expect(behind.count).toBe(2);
    expect(behind.users.map((u: any) => u.userId).sort()).toEqual([...ids.alpha].sort());
  });

  it('When alpha’s admin works the dead letters, then only alpha’s are counted, listed and replayed', async () => {
    const summary = (await call(login.alpha, 'dead-letters/summary')).body;
    expect(summary).toMatchObject({ total: 4, groups: [{ reason: 'alpha: a converter bug, since fixed', count: 4 }] });
    expect(summary.groups).toHaveLength(1);
    const listed = (await call(login.alpha, 'dead-letters?reason=converter')).body.rows;
    expect(new Set(listed.map((l: any) => l.userId))).toEqual(new Set(ids.alpha));
    expect((await call(login.operator, 'dead-letters/summary')).body.total).toBe(7);

    const betaLetter = { userId: ids.beta[0], key: 'statemachine/transition', writeTs: 1440700000, type: 'message' };
    expect((await call(login.alpha, 'dead-letters/replay', { selection: [betaLetter] })).status).toBe(404);
    expect((await call(login.alpha, 'dead-letters/replay-topic', { since: '2020-01-01' })).status).toBe(403);

    const started = await call(login.alpha, 'dead-letters/replay', { all: true });
    expect(started.status).toBe(200);
    expect(started.body.total).toBe(4);
    // Another program's admin does not learn of the job.
    expect((await call(login.beta, `jobs/${started.body.jobId}`)).status).toBe(404);
    expect((await finished(login.alpha, started.body.jobId)).state).toBe('done');
    const left = (await call(login.operator, 'dead-letters/summary')).body;
    expect(left.total).toBe(3);
    expect(left.groups.map((g: any) => g.reason).sort()).toEqual([
      'beta: a converter bug, since fixed',
      'gamma: a converter bug, since fixed',
      'implicit: a converter bug, since fixed',
    ]);
  });

  it('When alpha’s admin resets, then another program’s participant is unknown and “everyone” is alpha’s participants', async () => {
    expect((await call(login.alpha, 'reset', { userId: ids.beta[0], dryRun: true })).status).toBe(404);
    const plan = (await call(login.alpha, 'reset', { everyone: true, dryRun: true })).body;
    expect(plan.lines.map((l: string) => l.split(':')[0]).sort()).toEqual([...ids.alpha].sort());
    expect((await call(login.operator, 'reset', { everyone: true, dryRun: true })).body.lines).toHaveLength(5);
    const job = (await call(login.alpha, 'reset', { everyone: true, dryRun: false })).body;
    const done = await finished(login.alpha, job.jobId);
    expect(done).toMatchObject({ state: 'done', done: 2, total: 2 });
    expect(done.lines.at(-1)).toMatch(/of 2 participants$/);
  });

  it('When tokens are issued, then the program must exist and take the subgroup, and alpha’s admin issues alpha’s only', async () => {
    const issued = await call(login.alpha, 'tokens', { program: 'alpha', subgroup: 'car', count: 2, tester: true });
    expect(issued.status).toBe(200);
    expect(issued.body.tokens.map((t: any) => t.token.replace(/[A-Za-z0-9]{32}$/, '…'))).toEqual([
      'nrelop_alpha_car_test_…',
      'nrelop_alpha_car_test_…',
    ]);
    expect((await call(login.alpha, 'tokens', { program: 'beta' })).status).toBe(403);
    const refusals = [
      [login.alpha, { program: 'alpha', subgroup: 'bike' }, /invalid subgroup "bike"/],
      [login.operator, { program: 'zeta' }, /unknown program "zeta"/],
      [login.operator, { program: 'gamma', subgroup: 'night' }, /subgroup "night" is not "default"/],
    ] as const;
    for (const [who, request, why] of refusals) {
      const refused = await call(who, 'tokens', request);
      expect([refused.status, refused.body.error.message], JSON.stringify(request)).toEqual([
        400,
        expect.stringMatching(why),
      ]);
    }
    expect((await call(login.operator, 'tokens', { program: 'beta', subgroup: 'any' })).status).toBe(200);

    const refusedTokens = async (who: ConsoleLogin) =>
      (await call(who, 'tokens/refused')).body.rows.map((r: any) => r.token).sort();
    expect(await refusedTokens(login.alpha)).toEqual(['nrelop_alpha_nope_abc']);
    expect(await refusedTokens(login.operator)).toEqual([...REFUSED].sort());
  });

  it('When tokens are revoked, then alpha’s admin revokes alpha’s only, readers see them masked, and the table holds who and why', async () => {
    const [alphaToken, alphaCar] = PARTICIPANTS.alpha as [string, string];
    const betaToken = PARTICIPANTS.beta[0]!;
    expect((await call(login.reader, 'tokens/revoke', { tokens: [alphaToken], reason: 'lost phone' })).status).toBe(
      403,
    );
    const mixed = await call(login.alpha, 'tokens/revoke', { tokens: [alphaToken, betaToken], reason: 'lost phone' });
    expect([mixed.status, mixed.body.error.message]).toEqual([403, expect.stringMatching(/^1 of the tokens name/)]);
    expect((await call(login.alpha, 'tokens/revoke', { tokens: [alphaToken], reason: '\u202e' })).status).toBe(400);
    expect((await call(login.alpha, 'tokens/revoke', { tokens: [alphaToken], reason: 'lost phone' })).body).toEqual({
      revoked: 1,
      alreadyRevoked: 0,
    });
    const again = await call(login.operator, 'tokens/revoke', { tokens: [alphaToken], reason: 'second thoughts' });
    expect(again.body).toEqual({ revoked: 0, alreadyRevoked: 1 });
    // By participant: another program's uuid is the 404 of a uuid nobody has.
    expect((await call(login.alpha, `participants/${ids.beta[0]}/revoke-token`, { reason: 'left' })).status).toBe(404);
    const byUser = await call(login.alpha, `participants/${ids.alpha[1]}/revoke-token`, { reason: 'left the study' });
    expect(byUser.body).toEqual({ revoked: 1, alreadyRevoked: 0 });

    const fresh = createConsoleTokensTable(env.cql);
    expect([
      await fresh.isRevoked(alphaToken),
      await fresh.isRevoked(alphaCar),
      await fresh.isRevoked(betaToken),
    ]).toEqual([true, true, false]);
    const listed = (await call(login.operator, 'tokens/revoked')).body.rows.filter((r: any) =>
      PARTICIPANTS.alpha.includes(r.token),
    );
    // The first revocation stands: its author and reason, not the second call's.
    expect(listed.map((r: any) => [r.token, r.revokedBy, r.reason]).sort()).toEqual(
      [
        [alphaToken, ALPHA_ADMIN, 'lost phone'],
        [alphaCar, ALPHA_ADMIN, 'left the study'],
      ].sort(),
    );
    expect((await call(login.beta, 'tokens/revoked')).body.rows).toEqual([]);
    const masked = (await call(login.reader, 'tokens/revoked')).body.rows.map((r: any) => r.token);
    expect(masked).not.toContain(alphaToken);
    expect(masked).toHaveLength(listed.length);
  });

  it('When programs are read and changed, then each sees its own, versions must rise, and creating is the deployment’s', async () => {
    const names = async (who: ConsoleLogin) => (await call(who, 'programs')).body.programs.map((p: any) => p.program);
    expect(await names(login.alpha)).toEqual(['alpha']);
    expect(await names(login.reader)).toEqual(['alpha', 'beta', 'gamma']);
    const hidden = await call(login.alpha, 'programs/beta');
    const missing = await call(login.alpha, 'programs/zeta');
    expect([hidden.status, hidden.body.error.message]).toEqual([404, 'no program "beta"']);
    expect([missing.status, missing.body.error.message]).toEqual([404, 'no program "zeta"']);

    const v2 = { document: JSON.stringify({ ...DOCUMENTS.alpha, version: 2 }), note: 'a car subgroup' };
    expect((await call(login.alpha, 'programs', { program: 'delta', document: v2.document })).status).toBe(403);
    expect((await call(login.alpha, 'programs/beta/versions', v2)).status).toBe(404);
    expect((await call(login.reader, 'programs/alpha/versions', v2)).status).toBe(403);
    expect((await call(login.alpha, 'programs/alpha/versions', v2)).body).toMatchObject({
      version: 2,
      changedBy: ALPHA_ADMIN,
    });
    const again = await call(login.alpha, 'programs/alpha/versions', v2);
    expect([again.status, again.body.error.message]).toEqual([
      409,
      expect.stringMatching(/version 2 is not above the current version 2/),
    ]);
    const broken = await call(login.alpha, 'programs/alpha/versions', { document: '{"version":"three"}' });
    expect([broken.status, broken.body.error.message]).toEqual([
      400,
      expect.stringMatching(/^configuration refused: version/),
    ]);
    expect((await call(login.operator, 'programs', { program: 'beta', document: '{"version":5}' })).status).toBe(409);

    const alpha = (await call(login.alpha, 'programs/alpha')).body;
    expect(JSON.parse(alpha.document)).toEqual({ ...DOCUMENTS.alpha, version: 2 });
    expect(alpha.history.map((v: any) => [v.version, v.changedBy, v.note])).toEqual([
      [2, ALPHA_ADMIN, 'a car subgroup'],
      [1, 'operator@itinera.local', ''],
    ]);
  });
});
