import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabelTripMetricsTable, createProgramConfigsTable } from '../../shared/tables/index.js';
import { createProgramManager } from '../../shared/programs/manage-programs.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { sectionRows, writeAll } from '../../test/helpers/reads.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';

/**
 * Three programs and the implicit one on one stack, their participants' trips side by side in the same day
 * partitions: every aggregate a phone can ask for counts its own program only. Each program travels by its own mode,
 * so a figure of another program shows as a mode that does not belong in the answer.
 */

let env: TestEnv;
let gw: RunningGateway;

const DATE = '2016-08-10';
const NOON = Date.UTC(2016, 7, 10, 18) / 1000;
/** Participants by program, and the one mode each program travels by. */
const COHORTS = {
  ebike: {
    mode: 'bike',
    sensed: 'BICYCLING',
    tokens: ['nrelop_ebike_default_a1', 'nrelop_ebike_default_a2', 'nrelop_ebike_default_test_a3'],
  },
  transit: {
    mode: 'bus',
    sensed: 'BUS',
    tokens: ['nrelop_transit_default_b1', 'nrelop_transit_default_b2', 'nrelop_transit_default_b3'],
  },
  testers: { mode: 'walk', sensed: 'ON_FOOT', tokens: ['nrelop_testers_default_c1', 'nrelop_testers_default_test_c2'] },
  implicit: { mode: 'car', sensed: 'IN_VEHICLE', tokens: ['d1@example.org', 'd2@example.org'] },
} as const;

beforeAll(async () => {
  env = await createTestEnv({
    WEBSERVER_AGGREGATE_MIN_USERS: '2',
    WEBSERVER_AGGREGATE_CALL_AUTH: 'user_only',
    // Accounts made today, trips of 2016: the history rule (metrics-differencing.int.test.ts) would count none.
    WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '0',
    WEBSERVER_PROGRAM_REFRESH_S: '0.2',
  });
  const programs = createProgramManager(createProgramConfigsTable(env.cql));
  const by = 'operator@itinera.test';
  await programs.create({ program: 'ebike', document: JSON.stringify({ version: 1, opcode: { autogen: true } }), by });
  await programs.create({
    program: 'transit',
    document: JSON.stringify({ version: 1, opcode: { autogen: true } }),
    by,
  });
  const testers = { version: 1, opcode: { autogen: true }, metrics: { include_test_users: true } };
  await programs.create({ program: 'testers', document: JSON.stringify(testers), by });
  gw = await startGateway(env);

  const labels = createLabelTripMetricsTable(env.cql);
  const sections = [];
  let i = 0;
  for (const { mode, sensed, tokens } of Object.values(COHORTS))
    for (const token of tokens) {
      const res = await gw.post('/profile/create', { user: token });
      expect(res.status, token).toBe(200);
      const userId = res.body.uuid as string;
      const startTs = NOON + (i += 1) * 60;
      sections.push({ userId, startTs, mode: sensed, distance: 1000 });
      await labels.replaceDay(userId, DATE, [
        {
          userId,
          localDate: DATE,
          startTs,
          modeConfirm: mode,
          purposeConfirm: 'work',
          replacedModeConfirm: '',
          mode,
          distance: 1000,
          duration: 600,
          responded: true,
          answeredSurvey: undefined,
        },
      ]);
    }
  await writeAll(env.cql, sectionRows(sections));
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

const groupCards = (user: string) =>
  gw.post('/result/metrics/yyyy_mm_dd', {
    user,
    freq: 'D',
    start_time: DATE,
    end_time: DATE,
    metric_list: { count: ['mode_confirm'], distance: ['mode_confirm'] },
    is_return_aggregate: true,
  });

const sensedAggregate = (user: string) =>
  gw.post('/result/metrics/timestamp', {
    user,
    freq: 'D',
    start_time: NOON - 3600,
    end_time: NOON + 3600,
    metric_list: ['count', 'distance'],
    is_return_aggregate: true,
  });

describe('aggregates on a deployment of several programs', () => {
  it("When a participant asks for the group cards, then they count their own program's participants only", async () => {
    const expected = { ebike: 2, transit: 3, testers: 2, implicit: 2 };
    for (const [program, { mode, tokens }] of Object.entries(COHORTS)) {
      const res = await groupCards(tokens[0]);
      expect(res.status, program).toBe(200);
      const users = expected[program as keyof typeof expected];
      expect(res.body.count, program).toEqual([{ date: DATE, nUsers: users, [`mode_confirm_${mode}`]: users }]);
      expect(res.body.distance[0][`mode_confirm_${mode}`], program).toBe(1000 * users);
    }
  });

  it("When a participant asks for the sensed-mode aggregate, then no other program's section is in it", async () => {
    for (const [program, { sensed, tokens }] of Object.entries(COHORTS)) {
      const res = await sensedAggregate(tokens[1]);
      expect(res.status, program).toBe(200);
      const bins = res.body.aggregate_metrics[0] as Record<string, unknown>[];
      const modes = new Set(bins.flatMap((b) => Object.keys(b)).filter((k) => /^[A-Z_]+$/.test(k)));
      expect([...modes], program).toEqual([sensed]);
    }
  });

  it('When a program hides its figures from its participants, then they get no aggregate, and still their own metrics', async () => {
    const programs = createProgramManager(createProgramConfigsTable(env.cql));
    const hidden = { version: 2, opcode: { autogen: true }, itinera: { public_aggregates: false } };
    await programs.update({ program: 'transit', document: JSON.stringify(hidden), by: 'operator@itinera.test' });
    const member = COHORTS.transit.tokens[0];
    await waitFor(
      async () => ((await groupCards(member)).status === 404 ? true : undefined),
      15_000,
      'aggregates hidden',
    );
    const res = await groupCards(member);
    expect(res.body.error.message).toBe('aggregate metrics are not shown to this program');
    const own = await sensedAggregate(member);
    expect(own.status).toBe(200);
    expect(own.body.aggregate_metrics).toBeUndefined();
    expect(own.body.user_metrics[0][0]).toMatchObject({ BUS: 1 });
    // Other programs still see theirs.
    expect((await groupCards(COHORTS.ebike.tokens[0])).status).toBe(200);
  });

  it('When a program leaves its testers out, then a tester is not counted, though the tester may still read', async () => {
    const res = await groupCards('nrelop_ebike_default_test_a3');
    expect(res.status).toBe(200);
    expect(res.body.count[0].nUsers).toBe(2);
  });
});
