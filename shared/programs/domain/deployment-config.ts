import { z } from 'zod';
import { TOKEN_PART, TOKEN_PART_RULE } from '../../ids/token-part.js';

/**
 * A program's deployment configuration: the document e-mission's app reads (op-deployment-configs'
 * `<program>.nrel-op.json`). The fields the server or the app act on are checked; the rest (intro texts, reminder
 * schemes, dashboards, fields a later app adds) are kept as they are, so a document copied from OpenPATH's
 * repository is accepted whole and served back unchanged.
 */

/** Largest document kept (the whole of it goes to a phone in a put reply); OpenPATH's largest is about 40 KB. */
export const MAX_CONFIG_BYTES = 512 * 1024;

const subgroup = z.string().regex(TOKEN_PART, TOKEN_PART_RULE);

const version = z.string().regex(/^\d+(\.\d+){0,2}$/, 'a version such as "1.9.0"');

const Opcode = z.looseObject({
  autogen: z.boolean().optional(),
  subgroups: z.array(subgroup).min(1).optional(),
  suspended_subgroups: z.array(subgroup).optional(),
});

/** Days raw locations are kept; read on its own by retention too (retention-days.ts), whatever else fails. */
export const RawLocationDays = z.number().int().min(0).max(36_500);

/** The sections a program's public dashboard can show (docs/public-dashboards.md), in the order it shows them. */
export const PUBLIC_DASHBOARD_SECTIONS = ['trips', 'distance', 'mode_share', 'labelled_share', 'footprint'] as const;
export type PublicDashboardSection = (typeof PUBLIC_DASHBOARD_SECTIONS)[number];

/** Most weeks a public dashboard covers: each is seven day partitions read per refresh. */
export const MAX_PUBLIC_DASHBOARD_WEEKS = 52;

/**
 * The program's public dashboard (`/public/<program>/`): aggregates anyone may read, with the k rule of the group
 * comparisons. Shown unless `enabled` is false or `public_aggregates` is false.
 */
const PublicDashboard = z.strictObject({
  /** false: `/public/<program>/` answers 404, as for a program the deployment does not serve. @defaultValue true */
  enabled: z.boolean().optional(),
  /** The sections shown, in the dashboard's own order whatever the order here. @defaultValue every section */
  sections: z.array(z.enum(PUBLIC_DASHBOARD_SECTIONS)).min(1).optional(),
  /** Whole weeks shown, the last one holding `end_date`. @defaultValue 12 */
  weeks: z.number().int().min(1).max(MAX_PUBLIC_DASHBOARD_WEEKS).optional(),
  /** The last day shown (trip-local, YYYY-MM-DD), for a study that has ended. @defaultValue today (UTC) */
  end_date: z.iso.date().optional(),
});

/**
 * What Itinera itself reads of a program, under a key of its own (the app ignores keys it does not know): settings
 * of the server, not of the phone.
 */
const ItineraSettings = z.strictObject({
  /** false: the group comparisons (aggregate metrics) are not served to this program's phones. @defaultValue true */
  public_aggregates: z.boolean().optional(),
  /** Days raw locations are kept (`npx itinera retention`); 0 keeps them. @defaultValue retention.raw_location_days */
  raw_location_days: RawLocationDays.optional(),
  /** true: the program takes no new participants and no new data; what it holds is kept and readable. */
  closed: z.boolean().optional(),
  /** What a phone is told when the program is closed. */
  closed_message: z.string().max(500).optional(),
  public_dashboard: PublicDashboard.optional(),
});

export const DeploymentConfigSchema = z
  .looseObject({
    version: z.number().int().min(1).max(2_147_483_647),
    min_app_version: version.optional(),
    url_abbreviation: z.string().optional(),
    intro: z.looseObject({ program_or_study: z.enum(['program', 'study']).optional() }).optional(),
    label_options: z.union([z.url({ protocol: /^https?$/ }), z.record(z.string(), z.unknown())]).optional(),
    opcode: Opcode.optional(),
    metrics: z.looseObject({ include_test_users: z.boolean().optional() }).optional(),
    itinera: ItineraSettings.optional(),
  })
  .superRefine((doc, ctx) => {
    const opcode = doc.opcode;
    if (!opcode?.suspended_subgroups) return;
    const known = opcode.subgroups ?? ['default'];
    for (const name of opcode.suspended_subgroups)
      if (!known.includes(name))
        ctx.addIssue({
          code: 'custom',
          path: ['opcode', 'suspended_subgroups'],
          message: `"${name}" is not one of the program's subgroups (${known.join(', ')})`,
        });
  });

export type DeploymentConfig = z.infer<typeof DeploymentConfigSchema>;

/** Why a document was refused, one line per problem, each naming its field. */
export class ConfigRefusal {
  constructor(readonly problems: readonly string[]) {}
  get message(): string {
    return this.problems.join('; ');
  }
}

/** The document in `text`, checked; a ConfigRefusal naming every problem otherwise. */
export function parseDeploymentConfig(text: string): DeploymentConfig | ConfigRefusal {
  if (Buffer.byteLength(text, 'utf8') > MAX_CONFIG_BYTES)
    return new ConfigRefusal([`the document is larger than ${MAX_CONFIG_BYTES} bytes`]);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return new ConfigRefusal([`not JSON: ${err instanceof Error ? err.message : String(err)}`]);
  }
  const parsed = DeploymentConfigSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  return new ConfigRefusal(
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(document)'}: ${issue.message}`),
  );
}

/**
 * Whether a phone registers itself (e-mission's `dynamic` auth): with `opcode`, when `opcode.autogen` is true;
 * in an older document without it, when the intro calls it a study. Otherwise only tokens an operator issued
 * are accepted.
 */
export function phonesMakeTokens(config: DeploymentConfig): boolean {
  if (config.opcode) return config.opcode.autogen === true;
  return config.intro?.program_or_study === 'study';
}
