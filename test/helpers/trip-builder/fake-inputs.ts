import type { UserInputEntry } from '../../../services/trip-builder/domain/labels/input-entry.js';

/**
 * Builds user inputs (labels, surveys, notes) for the trip builder's tests, in the stored shape. Ids are made from a counter so that they sort in
 * creation order, as ObjectIds do.
 */
let counter = 0;

export interface FakeInput {
  key: string;
  start: number;
  end: number;
  writeTs?: number;
  label?: string;
  status?: 'ACTIVE' | 'DELETED' | string;
  matchId?: string;
  id?: string;
  extra?: Record<string, unknown>;
}

export function fakeInput(spec: FakeInput): UserInputEntry {
  counter += 1;
  return {
    _id: { $oid: spec.id ?? counter.toString(16).padStart(24, '0') },
    metadata: { key: spec.key, write_ts: spec.writeTs ?? 1, time_zone: 'UTC', type: 'message' },
    data: {
      start_ts: spec.start,
      end_ts: spec.end,
      ...(spec.label === undefined ? {} : { label: spec.label }),
      ...(spec.status === undefined ? {} : { status: spec.status }),
      ...(spec.matchId === undefined ? {} : { match_id: spec.matchId }),
      ...spec.extra,
    },
  };
}
