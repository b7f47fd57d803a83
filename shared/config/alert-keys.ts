/**
 * The console's alerts: `conf/net/console.conf`, under `console.alerts`; see docs/console.md, "Alerts". The keys are
 * read here as plain values; the console checks what they mean together when it starts
 * (services/console/alerts/alert-settings.ts): the rules name the radar's rules, which are the console's, not shared.
 */
import { key } from './config-declaration.js';
import { programLists } from './program-lists.js';
import * as types from './value-types.js';

const FILE = 'net/console.conf';

export const alertKeys = {
  rules: key({
    file: FILE,
    path: 'console.alerts.rules',
    env: 'CONSOLE_ALERTS_RULES',
    type: types.optionalList,
    default: ['silent:48h'],
    doc: 'Radar rules that alert, each `<rule>:<hours>h` (or `<days>d`), optionally `:<program>+<program>`.',
  }),
  // A Slack, Teams or Matrix incoming hook's URL is all it takes to post there: a secret.
  webhookUrl: key({
    file: FILE,
    path: 'console.alerts.webhook_url',
    env: 'CONSOLE_ALERTS_WEBHOOK_URL',
    type: types.text,
    default: '',
    secret: true,
    doc: 'Incoming webhook alerts are posted to (Slack, Teams, Matrix hookshot, Mattermost); empty: none.',
  }),
  webhookFormat: key({
    file: FILE,
    path: 'console.alerts.webhook_format',
    env: 'CONSOLE_ALERTS_WEBHOOK_FORMAT',
    type: types.oneOf(['text', 'teams_workflow']),
    default: 'text',
    doc: '`text`: `{"text": …}`; `teams_workflow`: also an Adaptive Card, as Teams Workflows hooks require.',
  }),
  smtpHost: key({
    file: FILE,
    path: 'console.alerts.smtp_host',
    env: 'CONSOLE_ALERTS_SMTP_HOST',
    type: types.trimmedText,
    default: '',
    doc: 'SMTP server alerts are mailed through; empty: no e-mail.',
  }),
  smtpPort: key({
    file: FILE,
    path: 'console.alerts.smtp_port',
    env: 'CONSOLE_ALERTS_SMTP_PORT',
    type: types.port,
    default: 587,
    doc: 'Its port (submission: 587 with `starttls`, 465 with `tls`).',
  }),
  smtpSecurity: key({
    file: FILE,
    path: 'console.alerts.smtp_security',
    env: 'CONSOLE_ALERTS_SMTP_SECURITY',
    type: types.oneOf(['starttls', 'tls', 'none']),
    default: 'starttls',
    doc: '`starttls` (required, not opportunistic), `tls` from the first byte, or `none` (a relay on loopback).',
  }),
  smtpUsername: key({
    file: FILE,
    path: 'console.alerts.smtp_username',
    env: 'CONSOLE_ALERTS_SMTP_USERNAME',
    type: types.trimmedText,
    default: '',
    doc: 'User to log in to the SMTP server as; set with its password; empty: no login.',
  }),
  smtpPassword: key({
    file: FILE,
    path: 'console.alerts.smtp_password',
    env: 'CONSOLE_ALERTS_SMTP_PASSWORD',
    type: types.text,
    default: '',
    secret: true,
    doc: 'Its password.',
  }),
  smtpCaFile: key({
    file: FILE,
    path: 'console.alerts.smtp_ca_file',
    env: 'CONSOLE_ALERTS_SMTP_CA_FILE',
    type: types.text,
    default: '',
    doc: 'PEM file of the authority that signed the SMTP server’s certificate, when Node.js does not trust it already.',
  }),
  mailFrom: key({
    file: FILE,
    path: 'console.alerts.mail_from',
    env: 'CONSOLE_ALERTS_MAIL_FROM',
    type: types.trimmedText,
    default: '',
    doc: 'Sender of the alert e-mails (`Itinera <alerts@example.org>`); required with `smtp_host`.',
  }),
  mailTo: key({
    file: FILE,
    path: 'console.alerts.mail_to',
    env: 'CONSOLE_ALERTS_MAIL_TO',
    type: types.optionalList,
    default: [],
    doc: 'Who receives every program’s alerts by e-mail.',
  }),
  programMailTo: key({
    file: FILE,
    path: 'console.alerts.program_mail_to',
    env: 'CONSOLE_ALERTS_PROGRAM_MAIL_TO',
    type: programLists,
    default: {},
    doc: 'Who also receives one program’s alerts, program → e-mails (the same JSON object in the environment).',
  }),
  digest: key({
    file: FILE,
    path: 'console.alerts.digest',
    env: 'CONSOLE_ALERTS_DIGEST',
    type: types.boolean,
    default: true,
    doc: 'Send each program a daily digest of what the alert rules find, on the channels above.',
  }),
  digestHour: key({
    file: FILE,
    path: 'console.alerts.digest_hour',
    env: 'CONSOLE_ALERTS_DIGEST_HOUR',
    type: types.nonNegativeNumber,
    default: 8,
    unit: 'hour (0–23)',
    doc: 'Local hour, in `time_zone`, from which the day’s digest is sent.',
  }),
  timeZone: key({
    file: FILE,
    path: 'console.alerts.time_zone',
    env: 'CONSOLE_ALERTS_TIME_ZONE',
    type: types.nonEmptyText,
    default: 'UTC',
    doc: 'IANA time zone of the digest hour and of the times alerts show (`Europe/Paris`).',
  }),
};
