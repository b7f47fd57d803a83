import { readFileSync } from 'node:fs';
import { alertKeys } from '../../../shared/config/alert-keys.js';
import type { ConfKey } from '../../../shared/config/config-declaration.js';
import type { Config } from '../../../shared/config/index.js';
import { ConfigError } from '../../../shared/errors/index.js';
import { isKnownTimeZone } from '../../../shared/time/index.js';
import { parseAlertRule, type AlertRule } from './domain/alert-rules.js';

export interface WebhookSettings {
  url: string;
  format: Config['alerts']['webhookFormat'];
}

export interface EmailSettings {
  host: string;
  port: number;
  security: Config['alerts']['smtpSecurity'];
  login: { user: string; pass: string } | null;
  /** PEM of the authority that signed the server's certificate; undefined: Node.js's own list. */
  ca: string | undefined;
  from: string;
  /** Who receives every program's alerts. */
  to: readonly string[];
  /** Who also receives one program's. */
  toByProgram: Readonly<Record<string, readonly string[]>>;
}

/** What the alerts run on, checked as a whole. No channel: alerts are off. */
export interface AlertSettings {
  rules: AlertRule[];
  webhook: WebhookSettings | null;
  email: EmailSettings | null;
  /** The local hour from which the daily digest goes out; null: no digest. */
  digestHour: number | null;
  timeZone: string;
  /** The console's public URL, which the messages link to. */
  consoleUrl: string;
}

/** Where an operator set a key, for a refusal: its variable, or its path in its file. */
const named = (k: ConfKey<unknown>) => `${k.env} (or ${k.path} in conf/${k.file})`;

const refuse = (k: ConfKey<unknown>, problem: string): never => {
  throw new ConfigError(`${named(k)}: ${problem}`, { details: { key: k.path, file: k.file, env: k.env } });
};

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

function rulesOf(texts: readonly string[]): AlertRule[] {
  return texts.map((text) => {
    const rule = parseAlertRule(text);
    return typeof rule === 'string' ? refuse(alertKeys.rules, rule) : rule;
  });
}

/** A hook's URL is a secret: plain HTTP only to this machine, and never quoted back. */
function webhookOf(a: Config['alerts']): WebhookSettings | null {
  if (a.webhookUrl.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(a.webhookUrl.trim());
  } catch {
    return refuse(alertKeys.webhookUrl, 'is not a URL (not shown: a secret)');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    refuse(alertKeys.webhookUrl, 'must be an https:// URL (http:// only to a loopback address)');
  return { url: url.href, format: a.webhookFormat };
}

function emailOf(a: Config['alerts']): EmailSettings | null {
  const recipients = a.mailTo.length + Object.values(a.programMailTo).flat().length;
  if (a.smtpHost === '') {
    if (recipients > 0) refuse(alertKeys.smtpHost, 'must be set when alerts have e-mail recipients');
    return null;
  }
  if (a.mailFrom === '') refuse(alertKeys.mailFrom, 'must be set with an SMTP host');
  if (recipients === 0) refuse(alertKeys.mailTo, 'must name a recipient (or program_mail_to) with an SMTP host');
  if ((a.smtpUsername === '') !== (a.smtpPassword === ''))
    refuse(alertKeys.smtpUsername, `must be set with ${alertKeys.smtpPassword.env}, or neither`);
  if (a.smtpSecurity === 'none' && a.smtpPassword !== '' && !LOOPBACK.test(a.smtpHost))
    refuse(alertKeys.smtpSecurity, 'is none: a password is sent in the clear only to a loopback address');
  let ca: string | undefined;
  if (a.smtpCaFile !== '') {
    try {
      ca = readFileSync(a.smtpCaFile, 'utf8');
    } catch {
      refuse(alertKeys.smtpCaFile, `${a.smtpCaFile} cannot be read`);
    }
  }
  return {
    host: a.smtpHost,
    port: a.smtpPort,
    security: a.smtpSecurity,
    login: a.smtpUsername === '' ? null : { user: a.smtpUsername, pass: a.smtpPassword },
    ca,
    from: a.mailFrom,
    to: a.mailTo,
    toByProgram: a.programMailTo,
  };
}

/**
 * The alert keys checked together, at the console's start: a rule no one can evaluate, or half an SMTP setting, stops
 * the console there rather than leaving it to alert no one.
 */
export function alertSettings(a: Config['alerts'], consoleUrl: string): AlertSettings {
  if (!isKnownTimeZone(a.timeZone)) refuse(alertKeys.timeZone, `${a.timeZone} is not an IANA time zone`);
  if (!Number.isInteger(a.digestHour) || a.digestHour > 23)
    refuse(alertKeys.digestHour, `must be a whole hour from 0 to 23, got ${a.digestHour}`);
  return {
    rules: rulesOf(a.rules),
    webhook: webhookOf(a),
    email: emailOf(a),
    digestHour: a.digest ? a.digestHour : null,
    timeZone: a.timeZone,
    consoleUrl,
  };
}
