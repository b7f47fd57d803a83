import type { AlertRule, Finding } from './alert-rules.js';
import { isDue, type ChannelName, type Delivery } from './delivery.js';

/** How the digest table names participants of no program: a program's name is never empty. */
export const NO_PROGRAM = '';

export const programKey = (program: string | null): string => program ?? NO_PROGRAM;

/** The programs a daily digest goes to: those with participants that at least one rule watches. */
export function digestPrograms(
  rules: readonly AlertRule[],
  participants: readonly { program: string | null }[],
): string[] {
  const watched = (program: string | null) =>
    rules.some((r) => r.programs === undefined || (program !== null && r.programs.includes(program)));
  const programs = new Set<string>();
  for (const p of participants) if (watched(p.program)) programs.add(programKey(p.program));
  return [...programs].sort();
}

export interface DigestPlan {
  /** The local day the digests are of (YYYY-MM-DD). */
  day: string;
  /** Programs whose digest of the day no console has claimed yet. */
  claim: string[];
  /** Programs whose digest a channel still lacks, with the attempt seen (the next is claimed over it). */
  retry: { program: string; attempt: number }[];
}

/**
 * Which digests one evaluation sends: from `hour` (local) on, each program's digest of the local day, once. `stored`
 * is the day's digest rows by program. Before the hour, none; a day's digest not sent by its end is not sent later.
 */
export function planDigests({
  local,
  hour,
  programs,
  stored,
  now,
  channelsOf,
}: {
  local: { day: string; hour: number };
  hour: number;
  programs: readonly string[];
  stored: ReadonlyMap<string, Delivery>;
  now: number;
  channelsOf: (program: string | null) => readonly ChannelName[];
}): DigestPlan {
  const plan: DigestPlan = { day: local.day, claim: [], retry: [] };
  if (local.hour < hour) return plan;
  for (const program of programs) {
    const delivery = stored.get(program);
    if (delivery === undefined) plan.claim.push(program);
    else if (isDue(delivery, channelsOf(program === NO_PROGRAM ? null : program), now))
      plan.retry.push({ program, attempt: delivery.attempt });
  }
  return plan;
}

/** The findings of one program's digest (`program` as the digest table names it). */
export const findingsOf = (findings: readonly Finding[], program: string): Finding[] =>
  findings.filter((f) => programKey(f.program) === program);
