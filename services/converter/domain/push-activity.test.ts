import { describe, expect, it } from 'vitest';
import type { BatchMessage } from './sort-batch.js';
import { pushActivity } from './push-activity.js';

const entry = (userId: string, receivedTs: number, platform: string | null, offset: number): BatchMessage => ({
  offset,
  ok: true,
  replayed: false,
  record: {
    user_id: userId,
    key: 'background/location',
    type: 'sensor-data',
    write_ts: receivedTs - 100,
    platform,
    received_ts: receivedTs,
    metadata_json: '{}',
    data_json: '{}',
  },
});

describe('pushActivity', () => {
  it('spans each user’s put times and keeps the platform an entry named', () => {
    const activity = pushActivity([
      entry('a', 200, 'android', 1),
      entry('b', 150, null, 2),
      entry('a', 100, null, 3),
      { offset: 4, ok: false, raw: { key: null, timestampMs: 0, base64: null }, error: 'corrupt' },
      entry('a', 300, null, 5),
    ]);
    expect(activity).toEqual([
      { userId: 'a', firstPushTs: 100, lastPushTs: 300, platform: 'android' },
      { userId: 'b', firstPushTs: 150, lastPushTs: 150, platform: undefined },
    ]);
  });
});
