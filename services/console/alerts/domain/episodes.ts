import { episodeKey, type Finding } from './alert-rules.js';
import { isDue, type ChannelName, type Delivery } from './delivery.js';

/** An episode as its row holds it: the finding that opened it, where its alert stands, and whether it is over. */
export interface Episode extends Finding, Delivery {
  /** When a console first found it (Unix seconds). */
  openedAt: number;
  /** When a console found the rule no longer finds the participant; null: it still does. */
  endedAt: number | null;
  /** Why the last attempt failed, if it did. */
  lastError: string | null;
}

export interface EpisodePlan {
  /** Found with no episode yet: each opens one, whose alert the console that claims it sends. */
  open: Finding[];
  /** Open, found again, and a channel still lacks their alert with no attempt under way: sent again. */
  retry: Episode[];
  /** Open, but the rule no longer finds the participant: the episode ends, and a new one may alert again. */
  close: Episode[];
  /**
   * Ended, yet found again with the same start: the same condition since the same moment (a consoles' refreshes
   * out of step, tracking off for a while in a spell without locations). It goes on, without a second alert.
   */
  resume: Episode[];
  /** Ended longer ago than the alerts are listed, or of a participant deleted since: the row goes. */
  forget: Episode[];
}

/**
 * What one evaluation does with the episodes, from what the rules find now and what the table holds. An episode is a
 * participant, a rule and when the condition began, so each console evaluating the same index plans the same
 * episodes, and the table's lightweight transactions decide which of them sends. `channelsOf` says which channels a
 * program's alerts go to.
 */
export function planEpisodes({
  found,
  stored,
  now,
  channelsOf,
  keepEndedSeconds,
  known = () => true,
}: {
  found: readonly Finding[];
  stored: readonly Episode[];
  now: number;
  channelsOf: (program: string | null) => readonly ChannelName[];
  keepEndedSeconds: number;
  /** Whether the participant still exists (is in the index): a deleted participant's rows go at once. */
  known?: (userId: string) => boolean;
}): EpisodePlan {
  const byKey = new Map(stored.map((e) => [episodeKey(e), e]));
  const foundKeys = new Set(found.map(episodeKey));
  const plan: EpisodePlan = { open: [], retry: [], close: [], resume: [], forget: [] };
  for (const f of found) {
    const episode = byKey.get(episodeKey(f));
    if (episode === undefined) plan.open.push(f);
    else if (episode.endedAt !== null) plan.resume.push(episode);
    else if (isDue(episode, channelsOf(episode.program), now)) plan.retry.push(episode);
  }
  for (const episode of stored) {
    if (foundKeys.has(episodeKey(episode))) continue;
    if (!known(episode.userId)) {
      plan.forget.push(episode);
      continue;
    }
    if (episode.endedAt === null) plan.close.push(episode);
    else if (now - episode.endedAt >= keepEndedSeconds) plan.forget.push(episode);
  }
  return plan;
}
