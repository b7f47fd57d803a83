import type { PushActivity } from '../../../shared/tables/participant-activity.js';
import type { BatchMessage } from './sort-batch.js';

/**
 * Per user of a batch, when its entries were put (the gateway's `received_ts`) and from which platform: what the
 * operators' console lists as first and last push. Undecodable records carry no user and count for nobody;
 * replayed ones were not pushed now.
 */
export function pushActivity(messages: readonly BatchMessage[]): PushActivity[] {
  const byUser = new Map<string, PushActivity>();
  for (const m of messages) {
    // A replayed dead letter is the server's doing, not a push from the phone.
    if (!m.ok || m.replayed) continue;
    const { user_id: userId, received_ts: ts, platform } = m.record;
    const seen = byUser.get(userId);
    if (!seen) {
      byUser.set(userId, { userId, firstPushTs: ts, lastPushTs: ts, platform: platform ?? undefined });
      continue;
    }
    seen.firstPushTs = Math.min(seen.firstPushTs, ts);
    seen.lastPushTs = Math.max(seen.lastPushTs, ts);
    if (platform) seen.platform = platform;
  }
  return [...byUser.values()];
}
