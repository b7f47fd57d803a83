import { describe, expect, it } from 'vitest';
import type { EmissionEntry, ImportSkip } from './emission-entry.js';
import { entriesOfOneUser } from './one-user.js';

const A = '0a0a0a0a-0000-4000-8000-000000000001';
const B = '0b0b0b0b-0000-4000-8000-000000000002';
const INTO = '0c0c0c0c-0000-4000-8000-000000000003';

function entry(userUuid: string, writeTs: number): EmissionEntry {
  return { userUuid, metadata: { key: 'background/location', write_ts: writeTs }, data: {}, file: 'dump.json' };
}

async function run(entries: EmissionEntry[], from: string | undefined, into: string) {
  const skips: ImportSkip[] = [];
  const kept: EmissionEntry[] = [];
  for await (const e of entriesOfOneUser(
    (async function* () {
      yield* entries;
    })(),
    { from, into },
    (s) => skips.push(s),
  ))
    kept.push(e);
  return { kept, skips };
}

describe('entriesOfOneUser', () => {
  it('When --uuid names a user, then only their entries come through, under the account’s uuid, and the others are skipped with why', async () => {
    const { kept, skips } = await run([entry(A, 1), entry(B, 2), entry(A, 3)], B, INTO);
    expect(kept.map((e) => [e.userUuid, e.metadata['write_ts']])).toEqual([[INTO, 2]]);
    expect(skips.map((s) => s.reason)).toEqual([
      `an entry of user ${A}, not of ${B}`,
      `an entry of user ${A}, not of ${B}`,
    ]);
  });

  it('When no user is named, then the first user of the dump is the one, and a second one is skipped', async () => {
    const { kept, skips } = await run([entry(A, 1), entry(B, 2), entry(A, 3)], undefined, A);
    expect(kept.map((e) => [e.userUuid, e.metadata['write_ts']])).toEqual([
      [A, 1],
      [A, 3],
    ]);
    expect(skips).toHaveLength(1);
    expect(skips[0]!.reason).toMatch(/not of .*the dump’s first user; --uuid names another/);
  });
});
