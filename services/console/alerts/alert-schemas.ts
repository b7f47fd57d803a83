import { z } from 'zod';
import { CHANNEL_NAMES } from './domain/delivery.js';

/*
 * The alerts' API: the episodes the alert rules opened lately, what became of their alerts, and the rules. Read from
 * what the last evaluation found in the table, so an answer reads nothing.
 */

export const AlertsQuery = z.object({
  /** open: the rule still finds the participant; ended: it no longer does. Absent: both. */
  state: z.enum(['open', 'ended']).optional(),
  size: z.coerce.number().int().min(1).max(500).default(100),
});

export const AlertRow = z
  .object({
    userId: z.uuid(),
    /** Masked, as the alert showed it. */
    token: z.string(),
    program: z.string().nullable(),
    /** The rule's id, `<rule>:<hours>h`. */
    rule: z.string(),
    /** When the condition began (Unix seconds): with the participant and the rule, it names the episode. */
    since: z.number(),
    /** The day page the alert links to. */
    day: z.string(),
    /** When a console first found it and sent its alert. */
    openedAt: z.number(),
    /** When the rule stopped finding the participant; null: it still does. */
    endedAt: z.number().nullable(),
    attempts: z.number().int(),
    /** When each channel took the alert; null: not yet (failed, or not a channel of this program). */
    sent: z.object(Object.fromEntries(CHANNEL_NAMES.map((c) => [c, z.number().nullable()]))),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'AlertRow' });

export const AlertList = z
  .object({
    /** Whether this console sends alerts: a channel is configured. */
    enabled: z.boolean(),
    channels: z.array(z.enum(CHANNEL_NAMES)),
    /** The rules that watch the caller's programs; `programs` null: every program. */
    rules: z.array(z.object({ rule: z.string(), programs: z.array(z.string()).nullable() })),
    /** When the last evaluation read the alerts (Unix seconds); null: none yet. */
    asOf: z.number().nullable(),
    total: z.number().int(),
    /** The latest opened first. */
    rows: z.array(AlertRow),
  })
  .meta({ id: 'AlertList' });
