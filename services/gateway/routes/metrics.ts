import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { LRUCache } from 'lru-cache';
import type { AggregateCallAuth } from '../../../shared/config/index.js';
import { ForbiddenError, NotFoundError } from '../../../shared/errors/index.js';
import { createLabelMetricsAccumulator } from '../domain/label-metrics.js';
import {
  type AccountRow,
  aggregateCallAuthInForce,
  createHistoryGate,
  type HistoryGate,
  historyDaysInForce,
} from '../domain/metrics-history.js';
import { createMetricsAccumulator, type ModeSummary } from '../domain/metrics-summary.js';
import {
  type LabelMetricsQuery,
  parseLabelMetricsQuery,
  parseMetricsCall,
  parseSectionMetricsQuery,
  type SectionMetricsQuery,
} from '../domain/parse-metrics-query.js';
import { bodyOf, type Body } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import { MetricsTimeType } from '../api/metrics-api.js';
import type { CohortFilter, DiaryReader, ProgramCohorts, ProgramMember } from '../stores.js';
import type { User } from '../../../shared/tables/users.js';
import { identifyMember, type IdentifyDeps } from './identify-user.js';

export interface MetricsLimits {
  /** Who may ask for aggregates over all users (e-mission's `aggregate_call_auth`). */
  aggregateCallAuth: AggregateCallAuth;
  /** k: an aggregate value computed from fewer distinct users is withheld. */
  aggregateMinUsers: number;
  /** Days an account must have existed before its trips count in an aggregate (domain/metrics-history). */
  aggregateMinHistoryDays: number;
  /** Section rows one scan (the user's, or the aggregate) may read. */
  metricsMaxSections: number;
}

export interface MetricsDeps extends IdentifyDeps {
  diary: DiaryReader;
  limits: MetricsLimits;
  /** Which program each participant belongs to: aggregates count only the caller's program. */
  cohorts?: ProgramCohorts;
}

interface Caller {
  user?: User | undefined;
  member?: ProgramMember | undefined;
}

/**
 * Whom an aggregate counts. In a deployment that serves programs, the caller's program only (its testers when its
 * `metrics.include_test_users` says so); a caller whose token names no program, or an anonymous one, sees the
 * participants of no program. Without programs, everyone (undefined: no filter).
 */
async function cohortOf(deps: MetricsDeps, caller: Caller): Promise<CohortFilter | undefined> {
  if (!deps.cohorts || !deps.programs || !(await deps.programs.servesPrograms())) return undefined;
  const program = caller.member?.program;
  const config = program === undefined ? undefined : (await deps.programs.config(program))?.config;
  return deps.cohorts.filter(program, { includeTesters: config?.metrics?.include_test_users === true });
}

/**
 * `/result/metrics/<timestamp|local_date>`: count, distance, duration and mean speed (median_speed is its alias)
 * per sensed mode, for the calling user and/or aggregated over all users, from the sections the trip builder keeps
 * in the section metrics table (shared/tables; one partition per day, so a call reads the days asked for, never
 * every trip). Sections are summed as they stream in; a call is bounded in days, in rows read, and in partitions
 * read at once.
 *
 * `/result/metrics/yyyy_mm_dd` (the current app's group cards): the aggregate over all users' confirmed trips by
 * label and trip-local day, from the per-trip rows the trip builder keeps in the label metrics table (one partition
 * per day, same bounds), in the answer form the request's `metric_list` shape asks for (domain/label-metrics).
 * Bodies are parsed in domain/parse-metrics-query.ts. Aggregates count only accounts old enough to have been made
 * for no attack, and none are served where tokens are e-mails off loopback (domain/metrics-history.ts).
 */
export function metricsRoutes(deps: MetricsDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const callAuth = aggregateCallAuthInForce(deps.auth.auth, deps.auth.host, deps.limits.aggregateCallAuth);
  const accounts = accountAges(deps);
  router.post('/result/metrics/:timeType', async (ctx) => {
    const asked = MetricsTimeType.safeParse(ctx.params['timeType']);
    if (!asked.success)
      throw new NotFoundError(
        `no metrics by ${(ctx.params['timeType'] ?? '').slice(0, 40)}; use timestamp, local_date or yyyy_mm_dd`,
      );
    const timeType = asked.data;
    const b = bodyOf(ctx.request.body);
    const call = parseMetricsCall(b);
    if (timeType === 'yyyy_mm_dd') {
      // The answer is the aggregate over all users whoever asks (e-mission's server never uses the user here), so
      // it is always an aggregate call: `aggregate_call_auth` decides, with or without `aggregate: true`, and
      // first, as e-mission does: where aggregates are off the route does not exist, whatever the body says.
      const caller = await authorizeAggregate(ctx, deps, callAuth, b);
      await requirePublicAggregates(deps, caller);
      ctx.body = await labelMetrics(deps, accounts, parseLabelMetricsQuery(b), await cohortOf(deps, caller));
      return;
    }
    const query = parseSectionMetricsQuery(timeType, b);
    // Validation first, then who may see what: a malformed call is a 400 whoever sends it.
    const caller: Caller = call.aggregateCall
      ? await authorizeAggregate(ctx, deps, callAuth, b)
      : await identifyMember(ctx, deps);
    // A user's own call may ask for the aggregate alongside (the classic app does). Where aggregates are off, it
    // gets its own metrics without them (e-mission would leak them here); the app shows "Unknown" for the
    // comparison, as it does whenever the aggregate fails.
    if (call.aggregateCall) await requirePublicAggregates(deps, caller);
    const aggregate =
      call.returnAggregate !== false &&
      (call.aggregateCall || callAuth !== 'never') &&
      (await aggregatesShown(deps, caller));
    ctx.body = await sectionMetrics(deps, accounts, query, {
      userId: caller.user?.uuid,
      aggregate,
      cohort: aggregate ? await cohortOf(deps, caller) : undefined,
    });
  });
  return router;
}

/** Whether the caller's program shows group comparisons (`itinera.public_aggregates`, true unless set false). */
async function aggregatesShown(deps: MetricsDeps, caller: Caller): Promise<boolean> {
  const program = caller.member?.program;
  if (program === undefined || !deps.programs) return true;
  return (await deps.programs.config(program))?.config.itinera?.public_aggregates !== false;
}

/**
 * A program that hides its figures from its participants (against the Hawthorne effect) answers an aggregate call
 * as a deployment without aggregates does: 404, which the app shows as a comparison it cannot make.
 */
async function requirePublicAggregates(deps: MetricsDeps, caller: Caller): Promise<void> {
  if (!(await aggregatesShown(deps, caller)))
    throw new NotFoundError('aggregate metrics are not shown to this program');
}

/**
 * e-mission's `get_user_or_aggregate_auth`: an aggregate call is checked against `aggregate_call_auth` (as it
 * applies: `never` for auth `skip` off loopback, domain/metrics-history). `no_auth` lets anyone in; `user_only`
 * wants the token of a registered user (403, as e-mission); `never` answers 404 "not supported", as e-mission
 * does, and not 403: the phone app takes a 403 for "unknown user" and would send its user back to registration.
 */
async function authorizeAggregate(
  ctx: ParameterizedContext<GatewayState>,
  deps: MetricsDeps,
  callAuth: AggregateCallAuth,
  b: Body,
): Promise<Caller> {
  switch (callAuth) {
    case 'no_auth':
      return b['user'] !== undefined ? identifyMember(ctx, deps) : {};
    case 'user_only':
      if (b['user'] === undefined || b['user'] === null || b['user'] === '')
        throw new ForbiddenError('aggregations only available to users: send your token as "user"');
      return identifyMember(ctx, deps);
    case 'never':
      throw new NotFoundError('aggregate calls are not supported on this server');
  }
}

/** When each account was created (epoch seconds), undefined for one that is gone. */
type AccountAges = (userId: string) => Promise<number | undefined>;

/**
 * Account creation times, remembered: they never change, so an aggregate over the same people reads each once per
 * `userCacheTtlMs` (bounded like the token cache), and a deleted account stops counting within that time.
 */
function accountAges(deps: MetricsDeps): AccountAges {
  const created = new LRUCache<string, { s: number | undefined }>({
    max: deps.auth.userCacheEntries,
    ttl: deps.auth.userCacheTtlMs,
  });
  return async (userId) => {
    const hit = created.get(userId);
    if (hit) return hit.s;
    const user = await deps.users.findByUuid(userId);
    const s = user ? user.createTs.getTime() / 1000 : undefined;
    created.set(userId, { s });
    return s;
  };
}

/** The history rule of domain/metrics-history in front of an aggregate's sums. */
function historyGate<T extends AccountRow>(
  deps: MetricsDeps,
  accounts: AccountAges,
  minUsers: number,
  add: (row: T) => void,
): HistoryGate<T> {
  return createHistoryGate(historyDaysInForce(minUsers, deps.limits.aggregateMinHistoryDays), accounts, add);
}

/** The user's own metrics over exactly the asked range, and/or the aggregate over whole bins, every one of them. */
async function sectionMetrics(
  deps: MetricsDeps,
  accounts: AccountAges,
  query: SectionMetricsQuery,
  { userId, aggregate, cohort }: { userId: string | undefined; aggregate: boolean; cohort: CohortFilter | undefined },
) {
  const compute = async (userId: string | null, minUsers: number): Promise<ModeSummary[][]> => {
    const range = userId === null ? (query.aggregateRange ?? query) : query;
    const acc = createMetricsAccumulator(query.binning, {
      minUsers,
      ...(userId === null && query.aggregateRange ? { span: query.aggregateRange } : {}),
    });
    const keep = query.keep;
    // Only the aggregate asks whose account may count; a user's own metrics are theirs however new the account.
    const gate = historyGate(deps, accounts, userId === null ? minUsers : 1, acc.add);
    await deps.diary.scanSections(
      userId,
      range.startTs,
      range.endTs,
      (s) => {
        // The aggregate counts the caller's program only; the user's own scan holds only the user.
        if (userId === null && cohort && !cohort(s.userId)) return;
        if (!keep || keep(s)) gate.offer(s);
      },
      { maxSections: deps.limits.metricsMaxSections },
    );
    await gate.drain();
    return query.metrics.map((m) => acc.summaries(m));
  };
  const userMetrics = userId !== undefined ? await compute(userId, 1) : undefined;
  const aggregateMetrics = aggregate ? await compute(null, deps.limits.aggregateMinUsers) : undefined;
  const shape = (lists: ModeSummary[][]) => (query.oldStyle ? (lists[0] ?? []) : lists);
  return {
    ...(userMetrics ? { user_metrics: shape(userMetrics) } : {}),
    ...(aggregateMetrics ? { aggregate_metrics: shape(aggregateMetrics) } : {}),
  };
}

/** The labelled trips of the asked days, aggregated over all users, in the form the request asked for. */
async function labelMetrics(
  deps: MetricsDeps,
  accounts: AccountAges,
  query: LabelMetricsQuery,
  cohort: CohortFilter | undefined,
) {
  const minUsers = deps.limits.aggregateMinUsers;
  const acc = createLabelMetricsAccumulator(query.metricList, { minUsers, footprint: query.footprint });
  const gate = historyGate(deps, accounts, minUsers, acc.add);
  await deps.diary.scanLabelTrips(query.localDates, (t) => (!cohort || cohort(t.userId) ? gate.offer(t) : undefined), {
    maxSections: deps.limits.metricsMaxSections,
  });
  await gate.drain();
  return query.form === 'by_metric' ? acc.byMetric() : acc.days();
}
