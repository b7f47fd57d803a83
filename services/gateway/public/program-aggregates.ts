import type { ServedConfig } from '../../../shared/programs/domain/admit-token.js';
import { createLabelMetricsAccumulator, footprintFactors } from '../domain/label-metrics.js';
import { createHistoryGate, historyDaysInForce } from '../domain/metrics-history.js';
import { dashboardPeriod } from '../domain/dashboard-weeks.js';
import { DASHBOARD_METRICS, publicAggregates, type PublicAggregates } from '../domain/public-aggregates.js';
import { type DashboardSettings, programTitle } from '../domain/public-dashboard-settings.js';
import type { DiaryReader, ProgramCohorts } from '../stores.js';

/** The aggregate rules of the deployment (`server.aggregate_*`), the same the group comparisons apply. */
export interface AggregateLimits {
  aggregateMinUsers: number;
  aggregateMinHistoryDays: number;
  /** Trips one dashboard's scan may read. */
  metricsMaxSections: number;
}

export interface AggregateSources {
  diary: Pick<DiaryReader, 'scanLabelTrips'>;
  cohorts: ProgramCohorts;
  /** When an account was created (epoch seconds, the server's clock); undefined for one that is gone. */
  accountCreated(userId: string): Promise<number | undefined>;
  limits: AggregateLimits;
}

/**
 * A program's dashboard data, read as the group comparisons read theirs: every participant's labelled trips of the
 * period's dates from the label metrics table, only the program's participants (its testers where its
 * `metrics.include_test_users` says so), only accounts old enough to count (domain/metrics-history), summed with
 * the k rule, then rolled into weeks (domain/public-aggregates).
 */
export async function programAggregates(
  sources: AggregateSources,
  { program, config }: ServedConfig,
  settings: DashboardSettings,
  nowMs: number,
): Promise<PublicAggregates> {
  const { aggregateMinUsers: k, aggregateMinHistoryDays, metricsMaxSections } = sources.limits;
  const footprint = footprintFactors({ label_options: config.label_options });
  const acc = createLabelMetricsAccumulator(DASHBOARD_METRICS, { minUsers: k, footprint, now: nowMs / 1000 });
  const cohort = await sources.cohorts.filter(program, { includeTesters: settings.includeTesters });
  const gate = createHistoryGate(historyDaysInForce(k, aggregateMinHistoryDays), sources.accountCreated, acc.add);
  const period = dashboardPeriod(settings.endDate, settings.weeks);
  await sources.diary.scanLabelTrips(period.dates, (trip) => (cohort(trip.userId) ? gate.offer(trip) : undefined), {
    maxSections: metricsMaxSections,
  });
  await gate.drain();
  return publicAggregates(acc.days(), {
    program,
    name: programTitle(config, program),
    k,
    weeks: period.weeks,
    endDate: settings.endDate,
    sections: settings.sections,
    labelOptions: config.label_options,
    hasFootprint: footprint !== undefined,
    generatedAt: new Date(nowMs).toISOString(),
  });
}
