import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { repoRoot, serviceNodeArgs } from '../../shared/config/repo-root.js';
import { createCassandraClient, createCql } from '../../shared/cassandra/index.js';
import { createIdempotentProducer, createKafka } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { replayDeadLetters } from '../converter/replay-dead-letters.js';
import { labelsReport } from './labels-report.js';
import { applyReset, planReset } from './reset-pipeline.js';
import { topicName } from '../../shared/events/index.js';
import { createUsersTable } from '../../shared/tables/index.js';
import { createDiaryPublisher } from '../trip-builder/diary-publisher.js';
import { planUserReset, resetUserTrips } from '../trip-builder/reset-user-trips.js';
import { composeTripBuilderStores } from '../trip-builder/compose.js';

const HELP = `itinera <command> [options]   (operator commands; exit 0 on success)

  intake <n>                        run n converter and n trip-builder workers until Ctrl-C; logs go to
                                    <conf/log/intake.conf dir>/intake_<i>.log.gz and intake_<i>-trips.log.gz
  fix-usercache-processing          replay the error timeseries through the converter; prints per key how
    [--wait-seconds 120]            many moved and how many still fail. Exit 3 while some still fail: fix the
                                    cause (upgrade the converter) and run it again. Writes no log file.
  errors [--samples 3]              count the error timeseries by metadata.key, with sample reasons
  reset-pipeline -a [-d YYYY-MM-DD] rewind the converter group to that date (UTC; default: the start) so the
    [--dry-run]                     normal process re-converts and rebuilds what follows; stop 'itinera intake' first
  reset-pipeline -u <user>          rebuild one user's trips, diary and metrics from that date (default: the
    [-d YYYY-MM-DD] [--dry-run]     start) now, from the raw timeseries; other users are not touched
  user <token or uuid>              what the timeseries holds for one user, by key
  labels <token or uuid>            a day's trips with their labels and notes (and their places'), and the
    [-d YYYY-MM-DD]                 inputs around it that label nothing, with the reason (default: the last day)
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`itinera: ${message}\n`);
  process.exit(code);
}

async function withServices<T>(work: (s: Awaited<ReturnType<typeof connect>>) => Promise<T>): Promise<T> {
  const s = await connect();
  try {
    return await work(s);
  } finally {
    await s.close();
  }
}

type Services = Awaited<ReturnType<typeof connect>>;

async function connect() {
  const config = loadConfig({ confDir: process.env['ITINERA_CONF_DIR'] ?? join(repoRoot, 'conf') });
  const logger = createLogger({ component: 'cli', level: 'warn' });
  const cassandra = createCassandraClient({ ...config.cassandra });
  await cassandra.connect();
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: 'itinera-cli', logger });
  const admin = kafka.admin();
  await admin.connect();
  const cql = createCql(cassandra);
  return {
    config,
    kafka,
    admin,
    cql,
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry.url)),
    async close() {
      await admin.disconnect();
      await cassandra.shutdown();
    },
  };
}

async function resolveUser(s: Services, who: string): Promise<string> {
  const user = await createUsersTable(s.cql, { cacheEntries: 1 }).findByEmail(who);
  if (user) return user.uuid;
  return /^[0-9a-f-]{36}$/.test(who) ? who : fail(`no user ${who}`, 1);
}

/**
 * One user: the trips derived from the date on (from the start without -d) are rebuilt now, from the raw
 * timeseries, which is left as it is. No consumer group moves, so the other users are not touched.
 */
async function resetOneUser(s: Services, who: string, date: string, dryRun: boolean): Promise<number> {
  const userId = await resolveUser(s, who);
  const fromTs = date === '' ? undefined : Date.parse(`${date}T00:00:00Z`) / 1000;
  const { trips } = composeTripBuilderStores(s.cql);
  const plan = await planUserReset({ trips }, userId, fromTs);
  const from = Number.isFinite(plan.window.fromTs) ? new Date(plan.window.fromTs * 1000).toISOString() : 'the start';
  process.stdout.write(`user ${userId}: rebuilding from ${from}, replacing ${plan.tripsReplaced} trips\n`);
  if (dryRun) return 0;
  const producer = createIdempotentProducer(s.kafka);
  await producer.connect();
  const pipelineLog = createLogger({ component: 'reset-pipeline', level: 'warn' });
  try {
    const diaryTopic = topicName(s.config.kafka.topicPrefix, 'diary');
    const result = await resetUserTrips(
      {
        ...composeTripBuilderStores(s.cql),
        pipelineLog,
        now: () => Date.now() / 1000,
        publishDocument: createDiaryPublisher({ producer, codec: s.codec, topic: diaryTopic }),
      },
      userId,
      fromTs,
    );
    process.stdout.write(`rebuilt ${result.trips} trips; days rewritten: ${result.days.join(' ') || 'none'}\n`);
    return 0;
  } finally {
    await producer.disconnect();
  }
}

async function intake(n: number): Promise<number> {
  if (!Number.isInteger(n) || n < 1 || n > 64) fail('intake needs a worker count between 1 and 64');
  const workers = ['converter', 'trip-builder'].flatMap((service) =>
    Array.from({ length: n }, (_, i) =>
      spawn(process.execPath, serviceNodeArgs(service, String(i)), { stdio: 'inherit' }),
    ),
  );
  process.stdout.write(
    `intake: ${n} converter and ${n} trip-builder workers running (pids ${workers.map((w) => w.pid).join(', ')}); Ctrl-C stops them\n`,
  );
  const stop = () => workers.forEach((w) => w.kill('SIGTERM'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const codes = await Promise.all(
    workers.map((w) => new Promise<number>((r) => w.once('exit', (code) => r(code ?? 0)))),
  );
  return codes.some((c) => c !== 0) ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      all: { type: 'boolean', short: 'a' },
      date: { type: 'string', short: 'd' },
      user: { type: 'string', short: 'u' },
      'dry-run': { type: 'boolean' },
      samples: { type: 'string' },
      'wait-seconds': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (!command || command === '--help' || command === '-h' || values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  switch (command) {
    case 'intake':
      return intake(Number(positionals[0]));
    case 'fix-usercache-processing':
      return withServices(async (s) => {
        const producer = createIdempotentProducer(s.kafka);
        await producer.connect();
        try {
          const report = await replayDeadLetters({
            errors: createErrorTimeseries(s.cql),
            producer,
            admin: s.admin,
            codec: s.codec,
            topicPrefix: s.config.kafka.topicPrefix,
            waitMs: Number(values['wait-seconds'] ?? 120) * 1000,
            onProgress: (sent) => process.stdout.write(`replayed ${sent}\n`),
          });
          process.stdout.write('key\treplayed\tmoved\tstill failing\n');
          for (const [key, c] of Object.entries(report.byKey))
            process.stdout.write(`${key}\t${c.replayed}\t${c.moved}\t${c.stillFailing}\n`);
          if (report.notReplayable > 0)
            process.stdout.write(
              `${report.notReplayable} dead letters cannot be replayed: no phone entry (undecodable records, failed trip rebuilds) or stored without their payload (see 'itinera errors')\n`,
            );
          if (!report.caughtUp)
            process.stdout.write(
              'the converter did not catch up in time: is `itinera intake` running? counts are provisional\n',
            );
          const failing = Object.values(report.byKey).some((c) => c.stillFailing > 0);
          return failing || !report.caughtUp ? 3 : 0;
        } finally {
          await producer.disconnect();
        }
      });
    case 'errors':
      return withServices(async (s) => {
        const errors = createErrorTimeseries(s.cql);
        const samples = Number(values.samples ?? 3);
        const byKey = new Map<string, { count: number; reasons: string[] }>();
        for await (const l of errors.all()) {
          const entry = byKey.get(l.key) ?? { count: 0, reasons: [] };
          entry.count += 1;
          if (entry.reasons.length < samples) entry.reasons.push(`${l.user_id} write_ts=${l.write_ts}: ${l.reason}`);
          byKey.set(l.key, entry);
        }
        if (byKey.size === 0) process.stdout.write('the error timeseries is empty\n');
        for (const [key, { count, reasons }] of byKey) {
          process.stdout.write(`${key}\t${count}\n${reasons.map((r) => `    ${r}\n`).join('')}`);
        }
        return 0;
      });
    case 'reset-pipeline': {
      if (!values.all === !values.user)
        fail('reset-pipeline needs exactly one of -a (all users) or -u <token or uuid>');
      const date = values.date ?? (values.all ? '1970-01-01' : '');
      if (date !== '' && (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))))
        fail('reset-pipeline -d needs a date YYYY-MM-DD');
      if (values.user) return withServices((s) => resetOneUser(s, values.user!, date, values['dry-run'] === true));
      return withServices(async (s) => {
        const plans = await planReset(s.admin, s.config.kafka.topicPrefix, date);
        for (const p of plans) {
          process.stdout.write(
            `${p.group} on ${p.topic}: ${p.partitions.map((x) => `${x.partition}->${x.offset}`).join(' ')}\n`,
          );
        }
        if (values['dry-run']) return 0;
        await applyReset(s.admin, plans);
        process.stdout.write('reset done; start `itinera intake <n>` to rebuild\n');
        return 0;
      });
    }
    case 'user':
      return withServices(async (s) => {
        const uuid = await resolveUser(s, positionals[0] ?? fail('user needs a token or a uuid'));
        process.stdout.write(`user ${uuid}\n`);
        const counts = await createTimeseriesReader(s.cql).countByKey(uuid);
        for (const [key, n] of Object.entries(counts)) process.stdout.write(`  ${key}\t${n}\n`);
        return 0;
      });
    case 'labels':
      return withServices(async (s) => {
        const uuid = await resolveUser(s, positionals[0] ?? fail('labels needs a token or a uuid'));
        const { trips, timeseries } = composeTripBuilderStores(s.cql);
        const day = values.date ?? (await trips.latestTrips(uuid, 1))[0]?.localDate;
        if (day === undefined) fail(`no trips for ${uuid}`, 1);
        if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) fail('labels -d needs a date YYYY-MM-DD');
        process.stdout.write(await labelsReport({ trips, timeseries }, uuid, day));
        return 0;
      });
    default:
      process.stderr.write(HELP);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`itinera: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
