import type { Logger } from '../../../shared/logger/index.js';
import { forEachBounded } from '../../../shared/runtime/for-each-bounded.js';
import type { ParticipantIndex } from '../participants/participant-index.js';
import { maskToken } from '../participants/query-participants.js';
import type { DigestTable, EpisodeTable } from './alert-tables.js';
import type { AlertSettings } from './alert-settings.js';
import { alertTime } from './alert-time.js';
import type { AlertChannel } from './channels/alert-channel.js';
import { deliver, reasonOf, type ItemOutcome } from './deliver.js';
import { alertMessage, digestMessage, type MessageContext } from './domain/alert-messages.js';
import { findAll, needsDayScores, type AlertSources, type Finding } from './domain/alert-rules.js';
import type { ScoreWatch } from './score-watch.js';
import { retryDelaySeconds, type ChannelName, type Delivery } from './domain/delivery.js';
import { digestPrograms, findingsOf, NO_PROGRAM, planDigests } from './domain/digests.js';
import { planEpisodes, type Episode } from './domain/episodes.js';

/** How long a console holds an attempt it claimed: far beyond a send's timeouts, so no other sends it meanwhile. */
const LEASE_S = 5 * 60;
/** How long ended episodes stay listed (GET /admin/api/alerts) before their rows go. */
const KEEP_ENDED_S = 30 * 24 * 3600;
/** Table writes at once: lightweight transactions take four round trips each. */
const WRITES_AT_ONCE = 8;

export interface AlertEvaluatorDeps {
  settings: AlertSettings;
  channels: readonly AlertChannel[];
  participants: Pick<ParticipantIndex, 'snapshot'>;
  /** The participants' runs of low-scoring days, for the low_score rule (score-watch.ts). */
  scores?: ScoreWatch;
  episodes: EpisodeTable;
  digests: DigestTable;
  logger: Logger;
  /** Unix seconds. */
  now?: () => number;
}

export interface AlertEvaluator {
  /**
   * One evaluation over the participant index as last refreshed: episodes opened, alerted, retried and ended, and
   * the day's digests once their hour has come. A failure is logged, never thrown: the next evaluation starts over.
   */
  evaluate(): Promise<void>;
  /** The episodes as the last evaluation left them, and when it read them (Unix seconds). */
  recent(): { asOf: number | null; episodes: readonly Episode[] };
}

/** Items by the program they are about. */
function byProgram<T extends { program: string | null }>(items: readonly T[]): Map<string | null, T[]> {
  const groups = new Map<string | null, T[]>();
  for (const item of items) {
    const group = groups.get(item.program);
    if (group) group.push(item);
    else groups.set(item.program, [item]);
  }
  return groups;
}

/** The effects around the pure plans (domain/): the table's claims decide which console sends what. */
export function createAlertEvaluator(deps: AlertEvaluatorDeps): AlertEvaluator {
  const { settings, channels, episodes, digests, logger } = deps;
  const now = deps.now ?? (() => Date.now() / 1000);
  const time = alertTime(settings.timeZone);
  const ctx: MessageContext = { consoleUrl: settings.consoleUrl, formatTime: time.format };
  const channelsOf = (program: string | null): ChannelName[] =>
    channels.filter((c) => c.carries(program)).map((c) => c.name);
  let last: { asOf: number | null; episodes: readonly Episode[] } = { asOf: null, episodes: [] };

  const each = <T>(items: readonly T[], work: (item: T) => Promise<void>) =>
    forEachBounded(items, WRITES_AT_ONCE, work);

  /** The items whose claim this console won. */
  async function won<T>(items: readonly T[], claim: (item: T) => Promise<boolean>): Promise<T[]> {
    const mine: T[] = [];
    await each(items, async (item) => {
      if (await claim(item)) mine.push(item);
    });
    return mine;
  }

  const outcomeOf = (o: ItemOutcome, at: number, attempt: number) => ({
    sent: o.sent,
    at,
    error: o.errors.join('; ') || null,
    retryAt: o.errors.length > 0 ? at + retryDelaySeconds(attempt) : null,
  });

  function logFailures(what: string, program: string | null, failures: { channel: ChannelName; reason: string }[]) {
    for (const { channel, reason } of failures)
      logger.warn('Alert not sent; tried again at the next evaluation', { what, program, channel, reason });
  }

  /**
   * One program's alerts: the episodes this console wins the claim of, then one message per channel. Claimed just
   * before sending, so that a lease covers one program's sends, however many programs an evaluation alerts.
   */
  async function alertProgram(program: string | null, open: readonly Finding[], retry: readonly Episode[]) {
    const at = now();
    const leaseUntil = at + LEASE_S;
    const claimed: (Finding & Delivery)[] = [
      ...(await won(open, (f) => episodes.open(f, at, leaseUntil))).map((f) => ({ ...f, attempt: 1, sent: {} })),
      ...(await won(retry, (e) => episodes.claimRetry(e, leaseUntil))),
    ].map((e) => ({ ...e, sendingUntil: leaseUntil }));
    if (claimed.length === 0) return;
    const { outcomes, failures } = await deliver(claimed, program, channels, (items) =>
      alertMessage(program, items, ctx),
    );
    logFailures('alert', program, failures);
    if ([...outcomes.values()].some((o) => o.sent.length > 0))
      logger.info('Alert sent', { program, participants: claimed.length });
    await each([...outcomes], ([e, o]) => episodes.recordOutcome(e, outcomeOf(o, now(), e.attempt)));
  }

  async function evaluateEpisodes(found: readonly Finding[], known: ReadonlySet<string>, at: number): Promise<void> {
    const stored = await episodes.all();
    const plan = planEpisodes({
      found,
      stored,
      now: at,
      channelsOf,
      keepEndedSeconds: KEEP_ENDED_S,
      known: (userId) => known.has(userId),
    });
    await each(plan.close, (e) => episodes.setEnded(e, at));
    await each(plan.resume, (e) => episodes.setEnded(e, null));
    await each(plan.forget, (e) => episodes.forget(e));
    const opening = byProgram(plan.open);
    const retrying = byProgram(plan.retry);
    for (const program of new Set([...opening.keys(), ...retrying.keys()]))
      await alertProgram(program, opening.get(program) ?? [], retrying.get(program) ?? []);
    const changed = Object.values(plan).some((list) => list.length > 0);
    last = { asOf: at, episodes: changed ? await episodes.all() : stored };
  }

  /** One program's digest of `day`, if this console wins its claim (or the claim of its next attempt). */
  async function digestProgram(day: string, key: string, stored: Delivery | undefined, found: readonly Finding[]) {
    const at = now();
    const leaseUntil = at + LEASE_S;
    const mine = stored
      ? await digests.claimRetry(day, key, stored.attempt, leaseUntil)
      : await digests.claim(day, key, at, leaseUntil);
    if (!mine) return;
    const program = key === NO_PROGRAM ? null : key;
    const digest: Delivery = stored ?? { attempt: 1, sendingUntil: leaseUntil, sent: {} };
    const { outcomes, failures } = await deliver([digest], program, channels, () =>
      digestMessage(program, day, findingsOf(found, key), settings.rules, ctx),
    );
    logFailures('digest', program, failures);
    await digests.recordOutcome(day, key, outcomeOf(outcomes.get(digest)!, now(), digest.attempt));
  }

  async function evaluateDigests(rows: AlertSources['rows'], found: readonly Finding[], at: number) {
    if (settings.digestHour === null || time.hour(at) < settings.digestHour) return;
    const day = time.day(at);
    const stored = await digests.ofDay(day);
    const plan = planDigests({
      local: { day, hour: time.hour(at) },
      hour: settings.digestHour,
      programs: digestPrograms(settings.rules, rows),
      stored,
      now: at,
      channelsOf,
    });
    for (const key of [...plan.claim, ...plan.retry.map((r) => r.program)])
      await digestProgram(day, key, stored.get(key), found);
  }

  return {
    async evaluate() {
      try {
        const { rows, asOf } = deps.participants.snapshot();
        // An index never loaded would end every open episode.
        if (asOf === 0) return;
        const at = now();
        const lowScores =
          deps.scores && needsDayScores(settings.rules) ? await deps.scores.lowScores(rows, at) : undefined;
        const sources = { rows, ...(lowScores ? { lowScores } : {}) };
        const found = findAll(settings.rules, sources, { now: at, localDay: time.day, mask: maskToken });
        await evaluateEpisodes(found, new Set(rows.map((r) => r.userId)), at);
        await evaluateDigests(rows, found, at);
      } catch (err) {
        logger.warn('Alert evaluation failed; the next one starts over', { reason: reasonOf(err) });
      }
    },
    recent: () => last,
  };
}
