import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';
import { keyedUserId } from '../keyed-user-id.js';
import { ndjsonLines } from './ndjson.js';

const dataDir = emissionFixturesDir();

/** The arrays of real-days/*.json (the ground truth files are not entry lists). */
function realDayEntries(name: string): any[] {
  return JSON.parse(readFileSync(join(dataDir, 'emission-real-days', name), 'utf8'));
}

async function* from<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe('ndjsonLines', () => {
  const entries = realDayEntries('shankari_2015-aug-27.json');

  it('writes one parseable line per stored entry, passing the text through', async () => {
    const texts = entries.map((e) => JSON.stringify(e));
    const lines = await collect(ndjsonLines(from(texts)));
    expect(lines).toHaveLength(entries.length);
    lines.forEach((line, i) => {
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
      expect(line).toBe(`${texts[i]}\n`);
    });
  });

  it('stringifies objects', async () => {
    const lines = await collect(ndjsonLines(from(entries.slice(0, 50))));
    expect(lines.map((l) => JSON.parse(l))).toEqual(entries.slice(0, 50));
  });

  it('keeps a pretty-printed text on one line without changing its value', async () => {
    const text = JSON.stringify({ data: { note: 'a\nb', n: [1, 2] } }, null, 2);
    const [line] = await collect(ndjsonLines(from([text])));
    expect(line!.slice(0, -1)).not.toMatch(/[\r\n]/);
    expect(JSON.parse(line!)).toEqual(JSON.parse(text));
  });

  it('replaces every user id, nested ones too, when asked', async () => {
    const files = readdirSync(join(dataDir, 'emission-labels')).filter((f) =>
      f.endsWith('.expected_composite_trips.json'),
    );
    for (const file of files) {
      const trips: any[] = JSON.parse(readFileSync(join(dataDir, 'emission-labels', file), 'utf8'));
      const realIds = new Set(trips.map((t) => t.user_id.$uuid as string));
      const userIdFor = (id: string) => keyedUserId('secret', id);
      const lines = await collect(ndjsonLines(from(trips.map((t) => JSON.stringify(t))), { userIdFor }));
      expect(lines).toHaveLength(trips.length);
      lines.forEach((line, i) => {
        for (const id of realIds) expect(line).not.toContain(id);
        const parsed = JSON.parse(line);
        expect(parsed.user_id.$uuid).toBe(userIdFor(trips[i].user_id.$uuid));
        expect(parsed.data.locations.map((l: any) => l.data.ts)).toEqual(
          trips[i].data.locations.map((l: any) => l.data.ts),
        );
      });
    }
  });

  it('does not modify the objects it is given', async () => {
    const entry = { user_id: { $uuid: 'abc' }, data: { user_id: 'abc' } };
    const [line] = await collect(ndjsonLines(from([entry]), { userIdFor: (id) => `x-${id}` }));
    expect(JSON.parse(line!)).toEqual({ user_id: { $uuid: 'x-abc' }, data: { user_id: 'x-abc' } });
    expect(entry).toEqual({ user_id: { $uuid: 'abc' }, data: { user_id: 'abc' } });
  });
});
