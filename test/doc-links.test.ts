import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../shared/config/repo-root.js';

/*
 * Links between the repository's Markdown pages, as GitHub renders them: a relative link names a file or folder of
 * the repository, and its `#anchor`, into a Markdown page, names one of that page's headings (GitHub's slug of it)
 * or an `<a name|id>` in it. Web links are not fetched: only what the repository itself holds is checked.
 */

/** Pages that quote others' Markdown or are written by tools, not by us. */
const NOT_OURS = [/^test\/fixtures\//, /^bench\/results\//];

function git(...args: string[]): string[] {
  return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
}

/** What a link may name: the tracked files, those about to be (untracked, not ignored), and their folders. */
function repositoryPaths(): Set<string> {
  const files = [...git('ls-files', '-z'), ...git('ls-files', '-z', '--others', '--exclude-standard')];
  const paths = new Set<string>(['']);
  for (const file of files) {
    paths.add(file);
    for (let dir = dirname(file); dir !== '.' && !paths.has(dir); dir = dirname(dir)) paths.add(dir);
  }
  return paths;
}

/** The page with its fenced code blocks and inline code blanked out (same length, same lines): no link is in code. */
/** The text with fenced code blocks blanked (a `#` line in a shell example is no heading). */
function withoutFences(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  const kept = lines.map((line) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opening) {
      fence = opening;
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence[0]!.repeat(fence.length)) && /^ {0,3}(`{3,}|~{3,})\s*$/.test(line))
        fence = undefined;
      return '';
    }
    return line;
  });
  return kept.join('\n');
}

/** The text with code blanked, fenced and inline: a link written in code is an example, not a link. */
function withoutCode(text: string): string {
  return withoutFences(text).replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length));
}

interface Link {
  line: number;
  target: string;
}

const INLINE_LINK =
  /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[(?!\^)[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm;

function linksOf(text: string): Link[] {
  const prose = withoutCode(text);
  const lineAt = (index: number) => prose.slice(0, index).split('\n').length;
  const links: Link[] = [];
  for (const pattern of [INLINE_LINK, REFERENCE_DEFINITION])
    for (const m of prose.matchAll(pattern))
      links.push({ line: lineAt(m.index), target: m[1]!.replace(/^<(.*)>$/, '$1') });
  return links;
}

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+([^_]+?)_+(?=[^\p{L}\p{N}]|$)/gu, '$1$2');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: its headings' slugs (repeats numbered as GitHub does) and its named anchors. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (heading: string) => {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  };
  // Inline code stays: GitHub's anchor of "## `conf/x.conf`" is made of the code's text.
  const lines = withoutFences(text).split('\n');
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx) add(atx[1]!);
    else if (i > 0 && /^ {0,3}(=+|-+)\s*$/.test(line) && /\S/.test(lines[i - 1]!) && !/^\s*[-*+>|]/.test(lines[i - 1]!))
      add(lines[i - 1]!.trim());
  });
  for (const m of text.matchAll(/<a\s[^>]*(?:name|id)=["']([^"']+)["']/gi)) anchors.add(m[1]!.toLowerCase());
  return anchors;
}

/** Why a link is broken, or undefined when it leads somewhere. */
function problem(page: string, target: string, paths: Set<string>, read: (path: string) => string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const rawPath = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? undefined : target.slice(hash + 1);
  let path: string;
  try {
    const decoded = decodeURIComponent(rawPath.split('?')[0]!);
    path = decoded === '' ? page : normalize(decoded.startsWith('/') ? decoded.slice(1) : join(dirname(page), decoded));
  } catch {
    return 'not a valid URL';
  }
  path = path.replace(/\/$/, '').replace(/^\.$/, '');
  if (path.startsWith('..')) return 'leads outside the repository';
  if (!paths.has(path)) return `no file ${path}`;
  if (anchor === undefined || anchor === '' || !path.endsWith('.md')) return undefined;
  const wanted = decodeURIComponent(anchor).toLowerCase();
  return anchorsOf(read(path)).has(wanted) ? undefined : `no heading #${wanted} in ${path}`;
}

describe('links between the Markdown pages', () => {
  const pages = git('ls-files', '-z', '*.md').filter((page) => !NOT_OURS.some((p) => p.test(page)));
  const paths = repositoryPaths();
  const texts = new Map<string, string>();
  const read = (path: string) => {
    let text = texts.get(path);
    if (text === undefined) texts.set(path, (text = readFileSync(join(repoRoot, path), 'utf8')));
    return text;
  };

  it('reads the pages it checks', () => {
    expect(pages).toContain('README.md');
    expect(pages.some((p) => p.startsWith('docs/'))).toBe(true);
  });

  it('finds every relative link’s file, and its heading when it names one', () => {
    const broken: string[] = [];
    for (const page of pages)
      for (const { line, target } of linksOf(read(page))) {
        const why = problem(page, target, paths, read);
        if (why) broken.push(`${page}:${line}: (${target}) ${why}`);
      }
    expect(broken).toEqual([]);
  });

  it('slugs headings as GitHub does, and sees links in prose only', () => {
    expect(slug('Puts: bodies, admission & limits')).toBe('puts-bodies-admission--limits');
    expect(slug('`find_entries` and _local dates_')).toBe('find_entries-and-local-dates');
    expect(slug('Über [the API](api.md)!')).toBe('über-the-api');
    expect([...anchorsOf('# A\n## A\n```\n# B\n```\nC\n---\n')]).toEqual(['a', 'a-1', 'c']);
    expect(linksOf('[a](x.md#y) `[b](z.md)`\n```\n[c](w.md)\n```\n[d]: <v w.md>').map((l) => l.target)).toEqual([
      'x.md#y',
      'v w.md',
    ]);
    const here = new Set(['docs', 'docs/a.md', 'README.md']);
    const pageOf = () => '# Top\n## Second part\n';
    expect(problem('docs/a.md', '../README.md#top', here, pageOf)).toBeUndefined();
    expect(problem('docs/a.md', '#second-part', here, pageOf)).toBeUndefined();
    expect(problem('docs/a.md', '#third', here, pageOf)).toBe('no heading #third in docs/a.md');
    expect(problem('docs/a.md', 'b.md', here, pageOf)).toBe('no file docs/b.md');
    expect(problem('docs/a.md', 'https://example.org/x.md', here, pageOf)).toBeUndefined();
  });
});
