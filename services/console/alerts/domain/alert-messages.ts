import type { AlertRule, Finding } from './alert-rules.js';
import { LOW_SCORE } from './score-streaks.js';

/**
 * A message about one program's participants. Plain text with bare links, which Slack, Teams, Matrix and mail
 * clients all show as they are. It names participants by masked token and links to their day in the console, where
 * an operator logs in to see more: nothing of where anyone was travels in it.
 */
export interface AlertMessage {
  /** The program it is about; null: participants of no program. */
  program: string | null;
  subject: string;
  lines: string[];
}

export interface MessageContext {
  /** The console's public URL, without a trailing slash. */
  consoleUrl: string;
  /** A time as the operators read it, in their zone. */
  formatTime: (ts: number) => string;
}

/** Participants one alert lists at most: the radar has them all. */
export const MAX_ALERT_LINES = 30;
/** Participants one digest lists at most. */
export const MAX_DIGEST_LINES = 50;

/** `silent:48h` → `silent for 48 h`; `low_score:72h` → `day score below 0.5 for 3 days`. */
export function describeRule(id: string): string {
  const [kind = id, time = ''] = id.split(':');
  const hours = Number(time.replace(/h$/, ''));
  if (kind === 'low_score') return `day score below ${LOW_SCORE} for ${Math.ceil(hours / 24)} days`;
  return `${kind.replace(/_/g, ' ')} for ${hours} h`;
}

const ofProgram = (program: string | null) => (program === null ? 'of no program' : `of ${program}`);
const participants = (n: number) => (n === 1 ? '1 participant' : `${n} participants`);

const dayUrl = (f: Finding, ctx: MessageContext) =>
  `${ctx.consoleUrl}/admin/day.html?user=${encodeURIComponent(f.userId)}&date=${f.day}`;

/** Longest-standing first, as the radar lists them, up to `max`, and how many more there are. */
function listed(findings: readonly Finding[], max: number, ctx: MessageContext): string[] {
  const sorted = [...findings].sort((a, b) => a.since - b.since || (a.userId < b.userId ? -1 : 1));
  const lines = sorted
    .slice(0, max)
    .map((f) => `- ${describeRule(f.rule)}: ${f.maskedToken}, since ${ctx.formatTime(f.since)}: ${dayUrl(f, ctx)}`);
  if (sorted.length > max) lines.push(`- and ${sorted.length - max} more`);
  return lines;
}

/** The alert of the episodes one evaluation opened (or retries) among one program's participants. */
export function alertMessage(program: string | null, findings: readonly Finding[], ctx: MessageContext): AlertMessage {
  return {
    program,
    subject: `Itinera alert: ${participants(findings.length)} ${ofProgram(program)} stopped collecting`,
    lines: [
      `The radar's alert rules found ${participants(findings.length)} ${ofProgram(program)}:`,
      ...listed(findings, MAX_ALERT_LINES, ctx),
      `Radar: ${ctx.consoleUrl}/admin/radar.html`,
    ],
  };
}

/** One program's digest of `day`: how many each rule watching it finds, and who. */
export function digestMessage(
  program: string | null,
  day: string,
  findings: readonly Finding[],
  rules: readonly AlertRule[],
  ctx: MessageContext,
): AlertMessage {
  const ids = [
    ...new Set(
      rules
        .filter((r) => r.programs === undefined || (program !== null && r.programs.includes(program)))
        .map((r) => r.id),
    ),
  ];
  const counts = ids.map((id) => `${describeRule(id)}: ${findings.filter((f) => f.rule === id).length}`);
  const who = new Set(findings.map((f) => f.userId)).size;
  return {
    program,
    subject: `Itinera daily digest ${ofProgram(program)}, ${day}: ${participants(who)} found`,
    lines: [
      `Daily digest ${ofProgram(program)}, ${day}. ${counts.join('; ')}.`,
      ...(findings.length === 0 ? ['No participant is found by the alert rules.'] : []),
      ...listed(findings, MAX_DIGEST_LINES, ctx),
      `Radar: ${ctx.consoleUrl}/admin/radar.html`,
    ],
  };
}
