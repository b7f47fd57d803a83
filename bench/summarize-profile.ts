/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof): self time per module and per function.
 *   tsx bench/summarize-profile.ts <file.cpuprofile>
 * Used by bench/profile-gateway.ts; run it by hand on a converter or trip-builder profile, e.g. after starting
 * one with NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof".
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function and per module (package or repository folder), in milliseconds. */
export function summarizeProfile(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/^file:\/\//, '').replace(`${root}/`, '');
    const module =
      /node_modules\/((@[^/]+\/)?[^/]+)/.exec(where)?.[1] ??
      (where.split('/').slice(0, 2).join('/') || '(native/idle)');
    const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + ms);
    mod.set(module, (mod.get(module) ?? 0) + ms);
  });
  const total = [...mod.values()].reduce((a, b) => a + b, 0);
  const rows = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${v.toFixed(0).padStart(7)} ms ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  return `self time by module (total ${total.toFixed(0)} ms):\n${rows(mod, 15)}\n\nself time by function:\n${rows(fn, top)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: tsx bench/summarize-profile.ts <file.cpuprofile>\n');
    process.exit(2);
  }
  process.stdout.write(`${summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)}\n`);
}
