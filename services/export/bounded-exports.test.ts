import { describe, expect, it } from 'vitest';
import { ConflictError, OverloadedError } from '../../shared/errors/index.js';
import { createBoundedExports } from './bounded-exports.js';
import type { ExportRequest } from './export-user.js';
import type { ExportSources } from './stores.js';

/** Sources of endless trips: an export ends only when its reader stops. */
const endless: ExportSources = {
  async *rawEntries() {
    for (let i = 0; ; i++) yield `{"n":${i}}`;
  },
  async *compositeTrips() {
    for (let i = 0; ; i++) yield { _id: { $oid: `t${i}` }, data: { start_ts: i, end_ts: i + 1 } };
  },
  dayQuality: async () => [],
};

const request: ExportRequest = { format: 'geojson', userId: 'u', range: { fromTs: 0, toTs: 1 } };
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('createBoundedExports', () => {
  it('streams a few at once, lets a few wait for the first to finish, refuses the rest', async () => {
    const exports = createBoundedExports(endless, { exportsAtOnce: 2, exportsQueued: 1 });
    const first = await exports.open(request);
    const second = await exports.open({ ...request, userId: 'u2', format: 'ndjson' });
    let thirdStarted = false;
    const third = exports.open({ ...request, userId: 'u3' }).then((e) => {
      thirdStarted = true;
      return e;
    });
    await expect(exports.open({ ...request, userId: 'u4' })).rejects.toBeInstanceOf(OverloadedError);
    await tick();
    expect(thirdStarted).toBe(false);

    // A slot is held while the body streams, and freed when its reader goes away.
    first.body.read();
    await tick();
    expect(thirdStarted).toBe(false);
    first.body.destroy();
    expect((await third).body.readable).toBe(true);
    (await third).body.destroy();
    second.body.destroy();
    await tick();
    const again = await exports.open(request);
    again.body.destroy();
  });

  it('frees the slot of an export that could not start', async () => {
    const exports = createBoundedExports(endless, { exportsAtOnce: 1, exportsQueued: 0 });
    const noSecret = { ...request, deidentify: { secret: '', radiusM: 100 } };
    await expect(exports.open(noSecret)).rejects.toThrow(/secret/);
    (await exports.open(request)).body.destroy();
  });

  it('gives one user one export at a time, and the next once the first has ended', async () => {
    const exports = createBoundedExports(endless, { exportsAtOnce: 2, exportsQueued: 2 });
    const first = await exports.open(request);
    await expect(exports.open({ ...request, format: 'ndjson' })).rejects.toBeInstanceOf(ConflictError);
    const other = await exports.open({ ...request, userId: 'someone else' });
    first.body.destroy();
    await tick();
    const again = await exports.open(request);
    again.body.destroy();
    other.body.destroy();
  });
});
