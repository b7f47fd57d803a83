/**
 * npm run bench:profile: where a put's time goes. Runs the gateway under V8's CPU profiler, sends PROFILE_PUTS
 * puts of 10,000 real entries from one phone, and prints the functions with the most self time, grouped by the
 * module they live in. The raw profile stays in bench/results/profiles/ for Chrome DevTools or speedscope.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../shared/config/index.js';
import { provision } from '../deploy/provision/provision.js';
import { emissionFixturesDir } from '../test/helpers/fixtures.js';
import { loadRealEntries, makeBatch } from '../test/helpers/phone-entries.js';
import { summarizeProfile, type CpuProfile } from './summarize-profile.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PORT = 18_081;
const PUTS = Number(process.env['PROFILE_PUTS'] ?? 10);

async function main(): Promise<void> {
  const tag = Date.now().toString(36);
  const config = loadConfig({
    confDir: join(root, 'conf'),
    env: {
      ...process.env,
      ITINERA_TOPIC_PREFIX: `prof${tag}.`,
      CASSANDRA_KEYSPACE: `prof${tag}`,
      ITINERA_PARTITIONS: '16',
    },
  });
  await provision(config);
  const profileDir = join(root, 'bench', 'results', 'profiles');
  mkdirSync(profileDir, { recursive: true });
  const before = new Set(readdirSync(profileDir));
  const logDir = mkdtempSync(join(tmpdir(), 'itinera-profile-'));
  const gateway = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', 'tsx', join(root, 'services/gateway/main.ts')],
    {
      env: {
        ...process.env,
        ITINERA_TOPIC_PREFIX: config.kafka.topicPrefix,
        CASSANDRA_KEYSPACE: config.cassandra.keyspace,
        WEBSERVER_PORT: String(PORT),
        WEBSERVER_HOST: '127.0.0.1',
        ITINERA_LOG_DIR: logDir,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${PORT}`;
  const post = (path: string, body: string) =>
    fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  for (let i = 0; ; i += 1) {
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 300) throw new Error('the gateway did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await post('/profile/create', JSON.stringify({ user: 'profile@itinera.org' }));
  const real = loadRealEntries(emissionFixturesDir());
  const bodies = Array.from({ length: PUTS + 1 }, (_, i) =>
    JSON.stringify({ user: 'profile@itinera.org', phone_to_server: makeBatch(real, 10_000, i) }),
  );
  const t0 = performance.now();
  for (const body of bodies) {
    const status = await post('/usercache/put', body);
    if (status !== 200) throw new Error(`put answered ${status}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  gateway.kill('SIGTERM');
  await new Promise((r) => gateway.once('exit', r));
  const file = readdirSync(profileDir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile was written');
  process.stdout.write(
    `${bodies.length} puts of 10,000 entries in ${seconds.toFixed(2)} s (${Math.round((bodies.length * 10_000) / seconds)} entries/s) under the profiler\n` +
      `profile: bench/results/profiles/${file}\n\n` +
      `${summarizeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile)}\n`,
  );
}

main().catch((err: unknown) => {
  console.error('profile failed:', err);
  process.exit(1);
});
