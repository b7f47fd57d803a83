import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A clone passes wherever it sits, with nothing beside it: no file of the project may name a path outside the
 * checkout, neither a machine's absolute folder nor a relative path that climbs out of the repository.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const TEXT = /\.(ts|mts|mjs|js|json|md|yaml|yml|sh|conf|properties|cql|avsc|html|css)$|(^|\/)(run|Dockerfile)$/;
/** Copies of outside data, and this file, whose examples are the paths it forbids. */
const CARRIED = /^test\/fixtures\/|^package-lock\.json$|^test\/self-contained\.test\.ts$/;

/** Folders that belong to one machine: a home, a workspace, a mount, a Windows drive. */
const MACHINE_PATH = /(?<![\w.:/\\-])(\/(?:work|home|Users|root|mnt|srv)\/[\w.-]+|[A-Za-z]:\\[A-Za-z][\w.-]*\\)/g;
/** A relative path that starts by climbing: `../x`, `../../x/y` (not a URL's `/a/../b`, which a server test sends). */
const CLIMBING_PATH = /(?<![\w./])((?:\.\.\/)+[\w@.-]+(?:\/[\w@.-]+)*)/g;

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

describe('the checkout is self-contained', () => {
  it('finds the paths this check is for', () => {
    // The check itself must be able to fail: each of these names a place outside a clone.
    expect(pathsOutside('test/helpers/x.ts', "readFileSync('/work/shared/data/day.json')")).toHaveLength(1);
    expect(pathsOutside('test/helpers/x.ts', "join(dir, '../../../shared/data/day.json')")).toHaveLength(1);
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
