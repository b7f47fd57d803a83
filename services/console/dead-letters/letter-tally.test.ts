import { describe, expect, it } from 'vitest';
import { lettersPerUser, summarizeTally, tallyLetters } from './letter-tally.js';

async function* refs(...letters: [string, string, string][]) {
  for (const [user_id, key, reason] of letters) yield { user_id, key, reason };
}

describe('letter tally', () => {
  it('When letters of several participants are counted, then a summary for some of them holds only theirs', async () => {
    const tally = await tallyLetters(
      refs(
        ['a', 'background/location', 'bad fix\nat 12.3,45.6'],
        ['a', 'background/location', 'bad fix\nat 7,8'],
        ['b', 'background/location', 'bad fix'],
        ['b', 'stats/event', 'unknown key'],
      ),
      100,
    );
    expect(summarizeTally(tally)).toEqual({
      total: 4,
      truncated: false,
      groups: [
        { key: 'background/location', reason: 'bad fix', count: 3 },
        { key: 'stats/event', reason: 'unknown key', count: 1 },
      ],
    });
    expect(summarizeTally(tally, (id) => id === 'b')).toEqual({
      total: 2,
      truncated: false,
      groups: [
        { key: 'background/location', reason: 'bad fix', count: 1 },
        { key: 'stats/event', reason: 'unknown key', count: 1 },
      ],
    });
    expect(summarizeTally(tally, () => false)).toEqual({ total: 0, truncated: false, groups: [] });
    expect(lettersPerUser(tally)).toEqual(
      new Map([
        ['a', 2],
        ['b', 2],
      ]),
    );
  });

  it('When there are more letters than the bound, then the count stops there and says so', async () => {
    const tally = await tallyLetters(refs(['a', 'k', 'r'], ['a', 'k', 'r'], ['a', 'k', 'r']), 2);
    expect(summarizeTally(tally)).toMatchObject({ total: 2, truncated: true });
  });
});
