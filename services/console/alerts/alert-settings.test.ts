import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config/index.js';
import { ConfigError } from '../../../shared/errors/index.js';
import { alertSettings } from './alert-settings.js';

const emptyConf = mkdtempSync(join(tmpdir(), 'itinera-alerts-'));
const settingsOf = (env: Record<string, string>) =>
  alertSettings(loadConfig({ env, confDir: emptyConf }).alerts, 'https://console.example.org');

const SMTP = {
  CONSOLE_ALERTS_SMTP_HOST: 'smtp.example.org',
  CONSOLE_ALERTS_MAIL_FROM: 'Itinera <alerts@example.org>',
  CONSOLE_ALERTS_MAIL_TO: 'ops@example.org',
};

describe('the alert settings', () => {
  it('When nothing is configured, then no channel is, so alerts are off; the default rule is read', () => {
    const settings = settingsOf({});
    expect([settings.webhook, settings.email]).toEqual([null, null]);
    expect(settings.rules.map((r) => r.id)).toEqual(['silent:48h']);
    expect([settings.digestHour, settings.timeZone]).toEqual([8, 'UTC']);
  });

  it('When a webhook and SMTP are configured, then both channels are, with the program recipients', () => {
    const settings = settingsOf({
      ...SMTP,
      CONSOLE_ALERTS_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X',
      CONSOLE_ALERTS_SMTP_USERNAME: 'itinera',
      CONSOLE_ALERTS_SMTP_PASSWORD: 'secret',
      CONSOLE_ALERTS_PROGRAM_MAIL_TO: '{"study-a":["pi@example.org"]}',
      CONSOLE_ALERTS_DIGEST: 'false',
    });
    expect(settings.webhook).toEqual({ url: 'https://hooks.slack.com/services/T/B/X', format: 'text' });
    expect(settings.email).toMatchObject({
      host: 'smtp.example.org',
      port: 587,
      security: 'starttls',
      login: { user: 'itinera', pass: 'secret' },
      to: ['ops@example.org'],
      toByProgram: { 'study-a': ['pi@example.org'] },
    });
    expect(settings.digestHour).toBeNull();
  });

  it('When a CA file is named, then its PEM is what the SMTP certificate is checked against', () => {
    const ca = join(emptyConf, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
    expect(settingsOf({ ...SMTP, CONSOLE_ALERTS_SMTP_CA_FILE: ca }).email?.ca).toContain('BEGIN CERTIFICATE');
  });

  it.each([
    [{ CONSOLE_ALERTS_RULES: 'silent:48h,loud:2h' }, 'CONSOLE_ALERTS_RULES', 'no rule loud'],
    [{ CONSOLE_ALERTS_WEBHOOK_URL: 'not a url' }, 'CONSOLE_ALERTS_WEBHOOK_URL', 'not a URL'],
    [{ CONSOLE_ALERTS_WEBHOOK_URL: 'http://hooks.example.org/x' }, 'CONSOLE_ALERTS_WEBHOOK_URL', 'https://'],
    [{ CONSOLE_ALERTS_MAIL_TO: 'ops@example.org' }, 'CONSOLE_ALERTS_SMTP_HOST', 'recipients'],
    [{ ...SMTP, CONSOLE_ALERTS_MAIL_FROM: '' }, 'CONSOLE_ALERTS_MAIL_FROM', 'must be set'],
    [{ ...SMTP, CONSOLE_ALERTS_MAIL_TO: '' }, 'CONSOLE_ALERTS_MAIL_TO', 'recipient'],
    [{ ...SMTP, CONSOLE_ALERTS_SMTP_USERNAME: 'u' }, 'CONSOLE_ALERTS_SMTP_USERNAME', 'PASSWORD'],
    [
      {
        ...SMTP,
        CONSOLE_ALERTS_SMTP_SECURITY: 'none',
        CONSOLE_ALERTS_SMTP_USERNAME: 'u',
        CONSOLE_ALERTS_SMTP_PASSWORD: 'p',
      },
      'CONSOLE_ALERTS_SMTP_SECURITY',
      'in the clear',
    ],
    [{ ...SMTP, CONSOLE_ALERTS_SMTP_CA_FILE: '/nowhere.pem' }, 'CONSOLE_ALERTS_SMTP_CA_FILE', 'cannot be read'],
    [{ CONSOLE_ALERTS_DIGEST_HOUR: '24' }, 'CONSOLE_ALERTS_DIGEST_HOUR', '0 to 23'],
    [{ CONSOLE_ALERTS_DIGEST_HOUR: '7.5' }, 'CONSOLE_ALERTS_DIGEST_HOUR', '0 to 23'],
    [{ CONSOLE_ALERTS_TIME_ZONE: 'Mars/Olympus' }, 'CONSOLE_ALERTS_TIME_ZONE', 'IANA'],
  ])('When %o, then the console refuses to start, naming %s', (env, variable, problem) => {
    expect(() => settingsOf(env)).toThrow(ConfigError);
    expect(() => settingsOf(env)).toThrow(new RegExp(`${variable}.*${problem}`));
  });

  it('When the webhook URL is refused, then the message does not quote it', () => {
    expect(() => settingsOf({ CONSOLE_ALERTS_WEBHOOK_URL: 'http://hooks.example.org/T0/B0/secret' })).toThrow(
      /^(?!.*secret)/s,
    );
  });
});
