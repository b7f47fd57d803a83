import type { StoredEntry } from '../../../shared/timeseries/index.js';

/** A converted entry as the converter stores it, of `userId`, with `data` beside its `ts`; written 5 s after. */
export const storedEntry = (userId: string, key: string, dataTs: number | null, data: object = {}): StoredEntry => ({
  userId,
  key,
  type: 'sensor-data',
  writeTs: (dataTs ?? 0) + 5,
  dataTs,
  oid: `${userId}${key}${dataTs}`,
  entryJson: JSON.stringify({ metadata: { key }, data: { ts: dataTs, ...data } }),
});
