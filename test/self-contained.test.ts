import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A clone passes wherever it sits, with nothing beside it: no file of the project may name a path outside the
 * checkout, neither a machine's absolute folder nor a relative path that climbs out of the repository. And the
 * project speaks of itself alone: its code and documents name no work log (a numbered session, an issue or item
 * number of its own tracker); history is CHANGELOG.md's and bench/results/'s.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const TEXT = /\.(ts|mts|mjs|js|json|md|yaml|yml|sh|conf|properties|cql|avsc|html|css)$|(^|\/)(run|Dockerfile)$/;
/** Copies of outside data, and this file, whose examples are the paths it forbids. */
const CARRIED = /^test\/fixtures\/|^package-lock\.json$|^test\/self-contained\.test\.ts$/;

/** Folders that belong to one machine: a home, a workspace, a mount, a Windows drive. */
const MACHINE_PATH = /(?<![\w.:/\\-])(\/(?:work|home|Users|root|mnt|srv)\/[\w.-]+|[A-Za-z]:\\[A-Za-z][\w.-]*\\)/g;
/** A relative path that starts by climbing: `../x`, `../../x/y` (not a URL's `/a/../b`, which a server test sends). */
const CLIMBING_PATH = /(?<![\w./])((?:\.\.\/)+[\w@.-]+(?:\/[\w@.-]+)*)/g;

/** A work log's words: a numbered session, issue or item. Another project's tracker is named as owner/repo#n. */
const WORK_LOG = /\bsession \d+|\bissues? #?\d+|\(items? \d+/gi;
/** Where history is kept, in the words of its time. */
const HISTORY = /^bench\/results\//;

function trackedTextFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  return out.split('\0').filter((f) => f !== '' && TEXT.test(f) && !CARRIED.test(f));
}

/** The paths in `text` (a file at `file`, relative to the root) that lead outside the checkout. */
export function pathsOutside(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(MACHINE_PATH)) found.push(m[1]!);
  for (const m of text.matchAll(CLIMBING_PATH)) {
    const target = resolve(root, dirname(file), m[1]!);
    const rel = relative(root, target);
    if (rel.startsWith('..') || isAbsolute(rel)) found.push(m[1]!);
  }
  return found;
}

/** The work-log words in `text`. */
export function workLogWords(text: string): string[] {
  return [...text.matchAll(WORK_LOG)].map((m) => m[0]);
}

/** Examples of what the checks forbid, assembled here so that this file does not itself hold them verbatim. */
const up = '../';
const machineRoot = ['', 'work', 'shared', 'data'].join('/');
const log = (word: string, n: number) => `${word} ${n}`;

describe('the checkout is self-contained', () => {
  it('finds the paths this check is for', () => {
    // The check itself must be able to fail: each of these names a place outside a clone.
    expect(pathsOutside('test/helpers/x.ts', `readFileSync('${machineRoot}/day.json')`)).toHaveLength(1);
    expect(pathsOutside('test/helpers/x.ts', `join(dir, '${up.repeat(3)}shared/data/day.json')`)).toHaveLength(1);
    expect(pathsOutside('docs/x.md', 'see [the spec](../../mission/spec.md)')).toHaveLength(1);
    expect(pathsOutside('services/a/b.ts', "import { x } from '../../shared/kafka/index.js';")).toEqual([]);
    expect(pathsOutside('services/a/b.ts', 'const home = "/home/alice/itinera";')).toHaveLength(1);
    expect(pathsOutside('services/a/b.ts', "const dir = 'C:\\Users\\alice\\';")).toHaveLength(1);
    expect(pathsOutside('services/a/b.ts', "get('/admin/js/../../../package.json')")).toEqual([]);
  });

  it('no tracked file names a path outside the checkout', () => {
    const offenders = trackedTextFiles().flatMap((file) =>
      pathsOutside(file, readFileSync(join(root, file), 'utf8')).map((path) => `${file}: ${path}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe('the project speaks of itself alone', () => {
  it('finds the words this check is for', () => {
    const said = `fixed in ${log('session', 14)} (${log('issue', 11)}, item 2)`;
    expect(workLogWords(said)).toEqual([log('session', 14), log('issue', 11)]);
    expect(workLogWords("describe('metrics: bounded work (item 1)'")).toEqual(['(item 1']);
    expect(workLogWords('as e-mission-docs#565 describes; a session of 30 minutes')).toEqual([]);
  });

  it('no tracked file outside the history names a work log', () => {
    const offenders = trackedTextFiles()
      .filter((file) => !HISTORY.test(file))
      .flatMap((file) => workLogWords(readFileSync(join(root, file), 'utf8')).map((words) => `${file}: ${words}`));
    expect(offenders).toEqual([]);
  });
});
