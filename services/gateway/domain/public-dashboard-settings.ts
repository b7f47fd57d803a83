import {
  type DeploymentConfig,
  PUBLIC_DASHBOARD_SECTIONS,
  type PublicDashboardSection,
} from '../../../shared/programs/domain/deployment-config.js';

/** Weeks shown when the program does not say: about a quarter, enough to see a trend. */
export const DEFAULT_DASHBOARD_WEEKS = 12;

/** What a program's public dashboard shows, its configuration's `itinera.public_dashboard` with the defaults. */
export interface DashboardSettings {
  /** In the dashboard's own order. */
  sections: PublicDashboardSection[];
  weeks: number;
  /** The last trip-local date shown. */
  endDate: string;
  /** Whether testers' trips count (`metrics.include_test_users`, as for the group comparisons). */
  includeTesters: boolean;
}

/**
 * The program's dashboard settings, or undefined when it has none to show: turned off by its own switch, or by
 * `public_aggregates: false`, which keeps the program's figures from its participants and so from everyone.
 * `today` (UTC) is the last date shown unless the program names an earlier end.
 */
export function publicDashboardSettings(config: DeploymentConfig, today: string): DashboardSettings | undefined {
  const itinera = config.itinera;
  const dashboard = itinera?.public_dashboard;
  if (itinera?.public_aggregates === false || dashboard?.enabled === false) return undefined;
  const asked = new Set(dashboard?.sections ?? PUBLIC_DASHBOARD_SECTIONS);
  return {
    sections: PUBLIC_DASHBOARD_SECTIONS.filter((s) => asked.has(s)),
    weeks: dashboard?.weeks ?? DEFAULT_DASHBOARD_WEEKS,
    endDate: dashboard?.end_date !== undefined && dashboard.end_date < today ? dashboard.end_date : today,
    includeTesters: config.metrics?.include_test_users === true,
  };
}

interface Intro {
  translated_text?: { en?: { deployment_name?: unknown } };
}

/** The name a dashboard is titled with: the app's English deployment name, else the program's own. */
export function programTitle(config: DeploymentConfig, program: string): string {
  const name = (config.intro as Intro | undefined)?.translated_text?.en?.deployment_name;
  return typeof name === 'string' && name.trim() !== '' ? name : program;
}
