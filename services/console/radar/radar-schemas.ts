import { z } from 'zod';
import { Participant } from '../api/schemas.js';

/*
 * The radar's API: who has stopped collecting, and since when. Each rule is a condition on what the pipeline
 * already records per participant (participant_activity: the last push, the last location, the phone's last
 * tracking state), read from the console's in-memory participant index, so a page view scans nothing.
 */

/** The radar's rules, each a way a phone stops collecting that an operator can act on. */
export const RADAR_RULES = ['silent', 'no_locations', 'tracking_off', 'not_labelling', 'outdated_app'] as const;
export type RadarRule = (typeof RADAR_RULES)[number];

export const RadarQuery = z.object({
  rule: z
    .enum(RADAR_RULES)
    .optional()
    .meta({
      description:
        'silent: no push for `hours` (or never, `hours` after registering); no_locations: pushes, but no location ' +
        'for `hours`; tracking_off: the phone says tracking is off; not_labelling: trips for `hours` since the last ' +
        'label, survey answer or note; outdated_app: an app version older than the newest ' +
        'another participant of the program runs. Absent: every participant any rule finds.',
    }),
  hours: z.coerce.number().int().min(1).max(8760).default(48).meta({ description: 'the silence that counts' }),
  page: z.coerce.number().int().min(0).max(1_000_000).default(0),
  size: z.coerce.number().int().min(1).max(200).default(50),
  /** `since` ascending: the longest-standing first. */
  dir: z.enum(['asc', 'desc']).default('asc'),
  subgroup: z.string().max(64).default('').meta({
    description: 'only participants whose token names this subgroup (`nrelop_<program>_<subgroup>_…`); empty: all',
  }),
});

/** A participant's row of the participants page, cut to what the radar shows (the token masked), with the rule. */
export const RadarRow = Participant.pick({
  userId: true,
  token: true,
  program: true,
  lastPush: true,
  lastLocation: true,
  lastTrip: true,
  lastTripLocal: true,
})
  .extend({
    rule: z.enum(RADAR_RULES),
    /** When the condition began (Unix seconds): the last push, the last location, or the tracking change. */
    since: z.number(),
  })
  .meta({ id: 'RadarRow' });

export const RadarPage = z
  .object({
    /** When the participant index was last refreshed (Unix seconds): the radar is as fresh as it. */
    asOf: z.number(),
    hours: z.number().int(),
    /** Participants each rule finds, among those in scope. */
    counts: z.record(z.enum(RADAR_RULES), z.number().int()),
    total: z.number().int(),
    page: z.number().int(),
    size: z.number().int(),
    rows: z.array(RadarRow),
  })
  .meta({ id: 'RadarPage' });
