import { z } from 'zod';
import { PUBLIC_DASHBOARD_SECTIONS } from '../../../shared/programs/domain/deployment-config.js';
import { json } from './phone-schemas.js';
import { routeGroup } from './phone-route.js';

/** public/public-routes.ts: a program's public dashboard, its figures, and the page's script and stylesheet. */

const Program = z.object({ program: z.string().meta({ description: 'The program’s name', example: 'study' }) });

const Week = z.iso.date().meta({ description: 'The Monday of the week' });

const WeekBins = z.array(z.object({ week: Week, label: z.string(), value: z.number() })).meta({
  description: 'One figure per week and label; a label fewer than k participants used is absent, never zero',
});

const ByLabel = z.object({ by_mode: WeekBins, by_purpose: WeekBins });

const PublicAggregates = z
  .object({
    program: z.string(),
    name: z.string().meta({ description: 'The program’s name for people' }),
    k: z.int().meta({ description: 'The fewest participants a figure is made from' }),
    weeks: z.array(Week).meta({ description: 'Every week of the period, oldest first' }),
    first_date: z.iso.date(),
    last_date: z.iso.date(),
    generated_at: z.iso.datetime(),
    sections: z.array(z.enum(PUBLIC_DASHBOARD_SECTIONS)),
    labels: z.array(z.object({ value: z.string(), name: z.string() })).meta({
      description: 'The name of each label the figures use',
    }),
    trips: ByLabel.optional(),
    distance_km: ByLabel.optional(),
    mode_share: z
      .array(z.object({ label: z.string(), trips: z.int(), share: z.number() }))
      .optional()
      .meta({ description: 'Each mode’s part of the period’s labelled trips' }),
    labelled_share: z
      .array(z.object({ week: Week, labelled: z.int(), unlabelled: z.int(), share: z.number() }))
      .optional(),
    footprint_kg_co2: z
      .object({ by_mode: WeekBins })
      .nullable()
      .optional()
      .meta({ description: 'null: the program’s label options give no mode a kgCo2PerKm' }),
  })
  .meta({ id: 'PublicAggregates' });

const Cached = z.object({
  ETag: z.string(),
  'Cache-Control': z.string().meta({ description: 'How long the answer holds' }),
});

const noDashboard = 'No dashboard: the program turns it off, the deployment serves no such program, or no aggregates';
const dashboardRefusals = {
  404: noDashboard,
  503: 'The programs or the trips could not be read: retry after `Retry-After`',
};

const asset = (name: string, type: string) => ({
  method: 'get' as const,
  path: `/public/${name}`,
  summary: `The dashboard page’s ${type === 'text/css' ? 'stylesheet' : 'script'}`,
  query: z.object({ v: z.string().optional().meta({ description: 'The content version the page names' }) }),
  answers: {
    200: { description: `The file, cached a year when asked with its version`, content: { [type]: z.string() } },
  },
  refusals: {},
});

export const publicApi = routeGroup('metrics', [
  {
    method: 'get',
    path: '/public/:program/',
    summary: 'The program’s public dashboard: charts of its aggregates, for anyone',
    description:
      'The same page for every program; its script reads `aggregates.json` beside it. The program’s `itinera.public_dashboard` chooses the sections or turns the page off.',
    params: Program,
    answers: { 200: { description: 'An HTML page', content: { 'text/html': z.string() }, headers: Cached } },
    refusals: dashboardRefusals,
  },
  {
    method: 'get',
    path: '/public/:program/aggregates.json',
    summary: 'The figures the program’s dashboard draws: trips, distance, shares and footprint by week',
    description:
      'Over the program’s participants only, with the k rule of the group comparisons applied per day; computed at most once per program every few minutes.',
    params: Program,
    answers: {
      200: { description: 'The figures, readable from any origin', content: json(PublicAggregates), headers: Cached },
    },
    refusals: {
      ...dashboardRefusals,
      400: 'The period holds more trips than one scan may read (`server.metrics_max_sections`)',
    },
  },
  asset('dashboard.js', 'application/javascript'),
  asset('dashboard.css', 'text/css'),
]);
