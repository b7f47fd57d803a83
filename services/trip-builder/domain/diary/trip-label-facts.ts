import type { LabelTripFact } from '../../../../shared/tables/index.js';
import { type CompositeTripEntry, isLabeled } from './composite-trip.js';

/** A label dimension's value when the trip has no such label (e-mission-common's `metrics_summaries`). */
export const UNLABELED = 'UNLABELED';
/** The `mode` of a trip with neither a mode label nor a sensed section. */
export const UNKNOWN_MODE = 'UNKNOWN';

/**
 * What `/result/metrics/yyyy_mm_dd` needs of one confirmed trip: its row of the label metrics table, but the user.
 * The dimension values are resolved here, once, as e-mission-common's `metrics_summaries` resolves them per call.
 */
export type TripLabelFact = Omit<LabelTripFact, 'userId'>;

/** A MULTILABEL answer is a string in `user_input`; anything else (absent, a survey entry, "") is no label. */
function labelOf(userInput: Record<string, unknown>, name: string): string | undefined {
  const value = userInput[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** e-mission-common's `primary_sensed_mode_for_trip`: the first mode with the greatest summed distance. */
export function dominantSensedMode(summary: unknown): string | undefined {
  const distances = (summary as { distance?: unknown } | null | undefined)?.distance;
  if (distances === null || typeof distances !== 'object') return undefined;
  let best: string | undefined;
  let bestDistance = -Infinity;
  for (const [mode, d] of Object.entries(distances as Record<string, unknown>)) {
    const distance = typeof d === 'number' && Number.isFinite(d) ? d : 0;
    if (best === undefined || distance > bestDistance) {
      best = mode;
      bestDistance = distance;
    }
  }
  return best;
}

function surveyName(userInput: Record<string, unknown>): string | undefined {
  const survey = userInput['trip_user_input'] as { data?: { name?: unknown } } | undefined;
  const name = survey?.data?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The label-metrics facts of a day's composite trips: confirmed trips only (a composite that originated from an
 * untracked period is not a trip: e-mission keeps `origin_key` ending in `_trip`), in the order given.
 */
export function tripLabelFacts(composites: readonly CompositeTripEntry[]): TripLabelFact[] {
  const out: TripLabelFact[] = [];
  for (const c of composites) {
    const meta = c.metadata as { key?: unknown; origin_key?: unknown };
    const originKey = typeof meta.origin_key === 'string' ? meta.origin_key : '';
    if (meta.key !== 'analysis/confirmed_trip' && !originKey.endsWith('_trip')) continue;
    const data = c.data as Record<string, unknown>;
    const fmt = data['start_fmt_time'];
    const startTs = data['start_ts'];
    if (typeof fmt !== 'string' || fmt.length < 10 || typeof startTs !== 'number') continue;
    const raw = data['user_input'];
    const userInput = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const modeLabel = labelOf(userInput, 'mode_confirm');
    out.push({
      localDate: fmt.slice(0, 10),
      startTs,
      modeConfirm: modeLabel ?? UNLABELED,
      purposeConfirm: labelOf(userInput, 'purpose_confirm') ?? UNLABELED,
      // Itinera (like e-mission's server) keeps the label as `replaced_mode`; e-mission-common reads
      // `replaced_mode_confirm`, which the phone never writes: both are read.
      replacedModeConfirm:
        labelOf(userInput, 'replaced_mode') ?? labelOf(userInput, 'replaced_mode_confirm') ?? UNLABELED,
      mode: modeLabel ?? dominantSensedMode(data['cleaned_section_summary']) ?? UNKNOWN_MODE,
      distance: numberOr0(data['distance']),
      duration: numberOr0(data['duration']),
      responded: isLabeled(c),
      answeredSurvey: surveyName(userInput),
    });
  }
  return out;
}
