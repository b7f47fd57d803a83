import type { Cql } from '../../../shared/cassandra/index.js';
import type { Config } from '../../../shared/config/index.js';
import type { Logger } from '../../../shared/logger/index.js';
import type { ParticipantIndex } from '../participants/participant-index.js';
import { createAlertEvaluator } from './alert-evaluator.js';
import type { AlertLog } from './alert-routes.js';
import { alertSettings } from './alert-settings.js';
import { createDigestTable, createEpisodeTable } from './alert-tables.js';
import type { AlertChannel } from './channels/alert-channel.js';
import { createEmailChannel } from './channels/email-channel.js';
import { createWebhookChannel } from './channels/webhook-channel.js';
import { createScoreWatch } from './score-watch.js';
import type { DayQualityReader } from '../../../shared/quality/day-quality.js';

export interface ComposedAlerts {
  /** What GET /admin/api/alerts answers from. */
  log: AlertLog;
  /** Evaluates now, then every participants_refresh_s; with no channel configured, only says alerts are off. */
  start(): void;
  /** Stops the timer and waits for an evaluation under way, so nothing writes after the console closes. */
  stop(): Promise<void>;
  /** One evaluation, as the timer runs it. */
  evaluate(): Promise<void>;
}

/**
 * The alerts from the configuration (checked at once: alert-settings.ts), over the participant index: evaluated as
 * often as the index is refreshed, since nothing they look at changes in between.
 */
export function composeAlerts(d: {
  config: Pick<Config, 'alerts' | 'console'>;
  cql: Cql;
  participants: Pick<ParticipantIndex, 'snapshot'>;
  /** The participants' day scores, for the low_score rule. */
  quality: DayQualityReader;
  logger: Logger;
  now?: () => number;
}): ComposedAlerts {
  const settings = alertSettings(d.config.alerts, d.config.console.publicUrl);
  const channels: AlertChannel[] = [
    ...(settings.webhook ? [createWebhookChannel(settings.webhook)] : []),
    ...(settings.email ? [createEmailChannel(settings.email)] : []),
  ];
  const evaluator = createAlertEvaluator({
    settings,
    channels,
    participants: d.participants,
    scores: createScoreWatch({ quality: d.quality, logger: d.logger }),
    episodes: createEpisodeTable(d.cql),
    digests: createDigestTable(d.cql),
    logger: d.logger,
    ...(d.now ? { now: d.now } : {}),
  });
  const periodMs = d.config.console.participantsRefreshSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  function run() {
    running = evaluator.evaluate().finally(() => {
      running = undefined;
      if (stopped) return;
      timer = setTimeout(run, periodMs);
      timer.unref();
    });
  }

  return {
    log: { channels: channels.map((c) => c.name), rules: settings.rules, recent: evaluator.recent },
    start() {
      if (channels.length === 0) {
        d.logger.info('Alerts off: no webhook_url nor smtp_host in console.alerts');
        return;
      }
      d.logger.info('Alerts on', {
        rules: settings.rules.map((r) => (r.programs ? `${r.id}:${r.programs.join('+')}` : r.id)),
        channels: channels.map((c) => c.name),
        digest: settings.digestHour === null ? 'off' : `${settings.digestHour}:00 ${settings.timeZone}`,
      });
      run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      for (const c of channels) c.close();
    },
    evaluate: () => evaluator.evaluate(),
  };
}
