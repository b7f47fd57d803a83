import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../shared/config/index.js';
import { cohortOf } from '../../../shared/programs/domain/opcode.js';
import { createParticipantActivityTable } from '../../../shared/tables/participant-activity.js';
import { createUsersTable } from '../../../shared/tables/users.js';
import { openTables } from '../../../shared/tables/open-tables.js';
import { createDayQualityReader } from '../../../shared/quality/day-quality.js';
import { createTestEnv, type TestEnv } from '../../../test/helpers/test-env.js';
import { createParticipantIndex, type ParticipantIndex } from '../participants/participant-index.js';
import { maskToken } from '../participants/query-participants.js';
import { alertList } from './alert-routes.js';
import { AlertsQuery } from './alert-schemas.js';
import { createEpisodeTable } from './alert-tables.js';
import { composeAlerts } from './compose-alerts.js';

const H = 3600;
/** A latitude or longitude as phones report them: a decimal with many places. */
const COORDINATES = /-?\d{1,3}\.\d{4,}/;

/** An incoming webhook: the bodies it took, and the number of posts still to refuse with a 500. */
function startWebhook() {
  const hook = { taken: [] as { text: string }[], posts: 0, refuseNext: 0, server: undefined as Server | undefined };
  hook.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hook.posts += 1;
      if (hook.refuseNext > 0) {
        hook.refuseNext -= 1;
        res.writeHead(500).end();
        return;
      }
      hook.taken.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string });
      res.writeHead(200).end('ok');
    });
  });
  return hook;
}

/** A mail's body as text, whichever transfer encoding nodemailer chose for it. */
function bodyText(raw: string): string {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => `%${hex}`);
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, '%25'));
  }
  return body;
}

let env: TestEnv;
let index: ParticipantIndex;
let clock = 0;
const hook = startWebhook();
const mails: { subject: string; to: string[]; text: string }[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      mails.push({
        subject: /^Subject: (.*)$/m.exec(raw)?.[1] ?? '',
        to: session.envelope.rcptTo.map((r) => r.address),
        text: bodyText(raw),
      });
      done();
    });
  },
});
let alertConfig: Pick<Config, 'alerts' | 'console'>;

beforeAll(async () => {
  env = await createTestEnv();
  await new Promise<void>((r) => hook.server!.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const users = createUsersTable(env.cql);
  const activity = createParticipantActivityTable(env.cql);
  index = createParticipantIndex({
    users: () => users.all(),
    activity: () => activity.all(),
    errorsByUser: async () => new Map(),
    profile: async () => undefined,
    programOf: (token) => cohortOf(token).program,
    logger: env.logger,
    refreshSeconds: 3600,
    now: () => clock,
  });
  alertConfig = {
    console: { ...env.config.console, publicUrl: 'https://console.example.org' },
    alerts: {
      ...env.config.alerts,
      webhookUrl: `http://127.0.0.1:${(hook.server!.address() as AddressInfo).port}/hooks/secret`,
      smtpHost: '127.0.0.1',
      smtpPort: (smtp.server.address() as AddressInfo).port,
      smtpSecurity: 'none',
      mailFrom: 'Itinera <alerts@example.org>',
      mailTo: ['ops@example.org'],
      programMailTo: { study: ['pi@example.org'] },
    },
  };
});
afterAll(async () => {
  hook.server?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
  await env?.dispose();
});

/** A console's alerts over the shared participant index, with `alerts` keys changed. */
const consoleAlerts = (alerts: Partial<Config['alerts']>) =>
  composeAlerts({
    config: { ...alertConfig, alerts: { ...alertConfig.alerts, ...alerts } },
    cql: env.cql,
    participants: index,
    quality: createDayQualityReader(openTables(env.cql), { maxDays: 92 }),
    logger: env.logger,
    now: () => clock,
  });

/** A participant of `program` whose phone pushed at `pushedAt`. */
async function participant(program: string, pushedAt: number) {
  const token = `nrelop_${program}_default_${randomUUID().replace(/-/g, '')}`;
  const { user } = await createUsersTable(env.cql).register(token);
  await pushes(user.uuid, pushedAt);
  return { token, userId: user.uuid };
}

const pushes = (userId: string, at: number) =>
  createParticipantActivityTable(env.cql).record([{ userId, firstPushTs: at, lastPushTs: at, platform: 'android' }]);

/** Moves the clock, refreshes the index, and lets every console evaluate at once. */
async function at(time: number, ...consoles: { evaluate(): Promise<void> }[]) {
  clock = time;
  await index.refresh();
  await Promise.all(consoles.map((c) => c.evaluate()));
}

describe('alerts from the radar’s rules', () => {
  it('When a participant’s pushes stop, then each channel gets one alert per episode, however many consoles evaluate', async () => {
    const t0 = Math.floor(Date.now() / 1000) - 10 * 24 * H;
    const { token, userId } = await participant('study', t0);
    const one = consoleAlerts({ rules: ['silent:48h:study'], digest: false });
    const two = consoleAlerts({ rules: ['silent:48h:study'], digest: false });

    await at(t0 + H, one, two);
    expect([hook.posts, mails.length]).toEqual([0, 0]);

    await at(t0 + 49 * H, one, two);
    expect(hook.taken).toHaveLength(1);
    expect(mails).toHaveLength(1);
    for (const text of [hook.taken[0]!.text, mails[0]!.text]) {
      expect(text).toContain(`silent for 48 h: ${maskToken(token)}`);
      expect(text).toContain(`https://console.example.org/admin/day.html?user=${userId}&date=`);
      expect(text).not.toContain(token);
      expect(text).not.toMatch(COORDINATES);
    }
    expect(mails[0]!.subject).toBe('Itinera alert: 1 participant of study stopped collecting');
    expect(mails[0]!.to.sort()).toEqual(['ops@example.org', 'pi@example.org']);

    // Evaluated again, and by a console started afresh: the episode has had its alert.
    await at(t0 + 50 * H, one, two, consoleAlerts({ rules: ['silent:48h:study'], digest: false }));
    expect([hook.posts, mails.length]).toEqual([1, 1]);

    // A push ends the episode.
    await pushes(userId, t0 + 51 * H);
    await at(t0 + 52 * H, one, two);
    const ended = alertList(one.log, AlertsQuery.parse({}), ['study']);
    expect(ended.rows.map((r) => [r.since, r.endedAt, r.sent])).toEqual([
      [t0, t0 + 52 * H, { webhook: t0 + 49 * H, email: t0 + 49 * H }],
    ]);

    // Silent again: a new episode, alerted again. The webhook fails once, and only it is sent again.
    hook.refuseNext = 1;
    await at(t0 + 100 * H, one, two);
    expect([hook.posts, hook.taken.length, mails.length]).toEqual([2, 1, 2]);
    // As the table says: each console lists what its own last evaluation read, maybe before the other wrote.
    const failed = (await createEpisodeTable(env.cql).all()).find((e) => e.endedAt === null)!;
    expect(failed).toMatchObject({ since: t0 + 51 * H, attempt: 1, sent: { email: t0 + 100 * H } });
    expect(failed.lastError).toContain('webhook: the webhook answered 500');

    // A failed channel waits a minute before it is asked again, not every evaluation.
    await at(t0 + 100 * H + 30, one, two);
    expect([hook.posts, hook.taken.length, mails.length]).toEqual([2, 1, 2]);
    await at(t0 + 100 * H + 60, one, two);
    expect([hook.posts, hook.taken.length, mails.length]).toEqual([3, 2, 2]);
    expect(hook.taken[1]!.text).toContain(`since ${new Date((t0 + 51 * H) * 1000).toISOString().slice(0, 10)}`);
    await at(t0 + 100 * H + 120, one, two);
    expect([hook.posts, mails.length]).toEqual([3, 2]);
  });

  it('When the digest hour has come, then each program’s digest goes out once that day, however many consoles', async () => {
    // Midnight UTC, so that every evaluation below falls on the same day.
    const t0 = Math.floor(Date.now() / 1000 / 86_400) * 86_400 - 20 * 24 * H;
    await participant('digest-a', t0);
    await participant('digest-a', t0 + 47 * H);
    const [posts, mailed] = [hook.posts, mails.length];
    const settings = { rules: ['silent:48h:digest-a'], digest: true, digestHour: 0, timeZone: 'UTC' };
    const one = consoleAlerts(settings);
    const two = consoleAlerts(settings);

    await at(t0 + 49 * H, one, two);
    const digests = (list: { text: string }[]) => list.filter((m) => m.text.startsWith('Itinera daily digest'));
    const digestMails = mails.slice(mailed).filter((m) => m.subject.startsWith('Itinera daily digest'));
    expect(digests(hook.taken.slice(posts))).toHaveLength(1);
    expect(digestMails).toHaveLength(1);
    expect(digestMails[0]!.subject).toMatch(
      /^Itinera daily digest of digest-a, \d{4}-\d{2}-\d{2}: 1 participant found$/,
    );
    expect(digestMails[0]!.text).toContain('silent for 48 h: 1.');

    await at(t0 + 50 * H, one, two);
    expect(digests(hook.taken.slice(posts))).toHaveLength(1);
    expect(mails.slice(mailed).filter((m) => m.subject.startsWith('Itinera daily digest'))).toHaveLength(1);
  });

  it('When a participant’s days score low three days running, then one alert names the first of them', async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const { userId } = await participant('scores', t0);
    const date = (daysAgo: number) => new Date((t0 - daysAgo * 24 * H) * 1000).toISOString().slice(0, 10);
    // Four days with one battery reading each and nothing else: no location, no state, so all but a quarter-hour is
    // no data. Today, the latest, is still filling and does not count.
    await openTables(env.cql).participantDays.record(
      [4, 3, 2, 1, 0].map((daysAgo) => ({
        userId,
        localDate: date(daysAgo),
        dataQuarters: [40],
        locationQuarters: [],
        motionQuarters: [],
        states: [],
      })),
    );
    const before = hook.taken.length;
    const watching = consoleAlerts({ rules: ['low_score:3d:scores'], digest: false });
    await at(t0, watching);
    const mine = hook.taken.slice(before).filter((m) => m.text.includes(userId));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.text).toContain('day score below 0.5 for 3 days');
    expect(mine[0]!.text).toContain(`&date=${date(4)}`);
    await at(t0 + 60, watching);
    expect(hook.taken.slice(before).filter((m) => m.text.includes(userId))).toHaveLength(1);
  });
});
