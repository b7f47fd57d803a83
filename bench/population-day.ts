/**
 * A study's whole population pushing a day (BENCH_PARTS=day, BENCH_DAY_USERS, default 10,000): every user's real
 * day in one put, 16 phones at a time, with one gateway, one converter and one trip builder as `npm start` runs
 * them; then the time until every entry is converted, every trip built and every user's trips served, what each
 * process spent per 1,000 entries (the cost curve's point at that many users), and peak memory. Progress is printed
 * every 30 s, since a run takes tens of minutes on a small machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Admin } from 'kafkajs';
import type { Config } from '../shared/config/index.js';
import { groupName, topicName } from '../shared/events/index.js';
import { groupProgress } from '../shared/kafka/index.js';
import type { RealDay } from './end-to-end.js';
import {
  benchKafka,
  cpuMs,
  gatewayHealthy,
  inParallel,
  jsonPoster,
  profilingArgs,
  residentMb,
  serviceArgs,
  sleep,
} from './load.js';

export interface PopulationDayFigures {
  users: number;
  entries: number;
  /** From the first put to the last put answered. */
  pushS: number;
  /** From the first put until the converter had committed every entry. */
  convertedS: number;
  /** From the first put until every user's getTrips of its day held all its trips. */
  servedS: number;
  putEntriesPerS: number;
  /** CPU (user + system) per 1,000 entries, by process, from the first put until every notice was handled. */
  cpuMsPer1000Entries: Record<string, number>;
  peakRssMb: Record<string, number>;
}

/** Phones putting at once: the e2e part's day load uses 8; the population day pushes harder. */
const PHONES = 16;

export async function benchPopulationDay(
  root: string,
  config: Config,
  env: NodeJS.ProcessEnv,
  gatewayUrl: string,
  days: readonly RealDay[],
  users: number,
  serverPids: Record<string, number | undefined>,
): Promise<PopulationDayFigures> {
  const admin = benchKafka(config, 'bench-day').admin();
  await admin.connect();
  try {
    return await pushAndWait(root, config, env, admin, gatewayUrl, days, users, serverPids);
  } finally {
    await admin.disconnect();
  }
}

async function pushAndWait(
  root: string,
  config: Config,
  env: NodeJS.ProcessEnv,
  admin: Admin,
  gatewayUrl: string,
  days: readonly RealDay[],
  users: number,
  serverPids: Record<string, number | undefined>,
): Promise<PopulationDayFigures> {
  const start = (script: string, args: string[]): ChildProcess =>
    spawn(process.execPath, [...profilingArgs(), ...serviceArgs(root, script), ...args], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const procs = {
    gateway: start('services/gateway/main.ts', []),
    converter: start('services/converter/main.ts', ['0']),
    'trip builder': start('services/trip-builder/main.ts', ['0']),
  };
  const peakRssMb: Record<string, number> = { gateway: 0, converter: 0, 'trip builder': 0 };
  const sampler = setInterval(() => {
    for (const [name, p] of Object.entries(procs)) peakRssMb[name] = Math.max(peakRssMb[name]!, residentMb(p.pid) ?? 0);
  }, 500);
  const post = jsonPoster(gatewayUrl);
  const usercache = topicName(config.kafka.topicPrefix, 'usercache');
  const timeseries = topicName(config.kafka.topicPrefix, 'timeseries');
  const converterGroup = groupName(config.kafka.topicPrefix, 'converter');
  const builderGroup = groupName(config.kafka.topicPrefix, 'tripBuilder');
  try {
    await gatewayHealthy(gatewayUrl);
    const pids = { ...Object.fromEntries(Object.entries(procs).map(([n, p]) => [n, p.pid])), ...serverPids };
    const cpuAtStart = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuMs(pid)]));
    const tokens = Array.from({ length: users }, (_, i) => `day-${config.kafka.topicPrefix}${i}@itinera.org`);
    const dayOf = (i: number) => days[i % days.length]!;
    const entries = tokens.reduce((sum, _, i) => sum + dayOf(i).entries.length, 0);

    let acknowledged = 0;
    const t0 = performance.now();
    const elapsedS = () => Math.round((performance.now() - t0) / 1000);
    const progress = setInterval(() => {
      void Promise.all([
        groupProgress(admin, converterGroup, usercache),
        groupProgress(admin, builderGroup, timeseries),
      ]).then(
        ([c, b]) =>
          process.stdout.write(
            `bench: day of ${users} users, ${elapsedS()} s: ${acknowledged} of ${entries} entries acknowledged, ${c.committed} converted, trip builder ${b.committed} of ${b.high} notices\n`,
          ),
        () => undefined,
      );
    }, 30_000);
    let pushS = 0;
    let convertedS = 0;
    let cpuAtBuilt: Record<string, number> = {};
    try {
      await inParallel(tokens, PHONES, async (token, i) => {
        const day = dayOf(i);
        const created = await post('/profile/create', { user: token });
        if (created.status !== 200) throw new Error(`bench: profile/create answered ${created.status}`);
        const put = await post('/usercache/put', { user: token, phone_to_server: day.entries });
        if (put.status !== 200) throw new Error(`bench: put answered ${put.status}`);
        acknowledged += day.entries.length;
      });
      pushS = elapsedS();
      const caughtUp = async (group: string, topic: string, what: string) => {
        for (;;) {
          const p = await groupProgress(admin, group, topic);
          if (p.high > 0 && p.committed >= p.high) return;
          const dead = Object.entries(procs).find(([, proc]) => proc.exitCode !== null);
          if (dead) throw new Error(`bench: the ${dead[0]} exited before ${what}`);
          await sleep(1000);
        }
      };
      await caughtUp(converterGroup, usercache, 'every entry was converted');
      convertedS = elapsedS();
      // The trips are read only once the trip builder has gone through every notice, so reading 10,000 users'
      // trips neither slows it nor counts in the CPU per entry.
      await caughtUp(builderGroup, timeseries, 'every notice was handled');
      cpuAtBuilt = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuMs(pid)]));
      // Every user's trips, read as the phone reads them; a user not yet built is read again after the others.
      let waiting = tokens.map((_, i) => i);
      while (waiting.length > 0) {
        const still: number[] = [];
        await inParallel(waiting, PHONES, async (i) => {
          const day = dayOf(i);
          const r = await post(`/timeline/getTrips/${day.day}`, { user: tokens[i] });
          const timeline = r.json['timeline'];
          if (!Array.isArray(timeline) || timeline.length < day.trips) still.push(i);
        });
        waiting = still;
        if (waiting.length > 0) await sleep(2000);
        if (elapsedS() > 4 * 3600) throw new Error(`bench: ${waiting.length} users' trips never served`);
      }
    } finally {
      clearInterval(progress);
    }
    const servedS = elapsedS();
    return {
      users,
      entries,
      pushS,
      convertedS,
      servedS,
      putEntriesPerS: Math.round(entries / Math.max(pushS, 1)),
      cpuMsPer1000Entries: Object.fromEntries(
        Object.keys(pids).map((n) => [n, Math.round(((cpuAtBuilt[n]! - cpuAtStart[n]!) / entries) * 10_000) / 10]),
      ),
      peakRssMb,
    };
  } finally {
    clearInterval(sampler);
    const list = Object.values(procs);
    for (const p of list) p.kill('SIGTERM');
    await Promise.all(list.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  }
}

/** The benchmark table's rows for the population day. */
export function populationDayRows(f: PopulationDayFigures): string[] {
  const total = Math.round(Object.values(f.cpuMsPer1000Entries).reduce((a, b) => a + b, 0) * 10) / 10;
  const min = (s: number) => (s < 120 ? `${s} s` : `${(s / 60).toFixed(1)} min`);
  return [
    `| ${f.users.toLocaleString('en')} users' full day (${f.entries.toLocaleString('en')} entries) pushed → all trips served | ${min(f.servedS)} (pushed in ${min(f.pushS)}, ${f.putEntriesPerS} entries/s; all converted at ${min(f.convertedS)}) | e-mission: hourly batches | |`,
    `| CPU ms per 1,000 entries, ${f.users.toLocaleString('en')} users' day | ${total} ms in all: ${Object.entries(
      f.cpuMsPer1000Entries,
    )
      .map(([n, v]) => `${n} ${v}`)
      .join(', ')}; peak RSS ${Object.entries(f.peakRssMb)
      .map(([n, v]) => `${n} ${v} MB`)
      .join(', ')} | | |`,
  ];
}
