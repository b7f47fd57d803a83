import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../shared/config/repo-root.js';
import { fromGroundTruth, matches } from '../helpers/evaluate-trips.js';
import { postTo } from '../helpers/gateway.js';
import { freePort } from '../helpers/free-port.js';
import { DAY_OF, loadGroundTruth, phoneEntries } from '../helpers/real-days.js';
import { createTestEnv, serviceEnv, waitFor, type TestEnv } from '../helpers/test-env.js';
import { pushEntries, settledTrips } from '../helpers/trips.js';

/**
 * Production runs the compiled JavaScript, as `npm start` does: `node dist/services/all-in-one.js`, each service
 * a child process of it. Every other test runs the TypeScript sources, so this one proves the build itself: a
 * missing file in dist/, an import that only tsx resolves, or a path found from the sources' depth would pass
 * everywhere else and fail here.
 */

const DAY = 'shankari_2015-aug-27';
const ENTRY = join(repoRoot, 'dist', 'services', 'all-in-one.js');

/** The newest modification time among the sources the build compiles (tests are not compiled). */
function newestSource(): number {
  const files = execFileSync('git', ['ls-files', '-z', '--', 'services', 'shared', 'deploy', 'schemas', 'conf'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && !/\.test\.ts$/.test(f) && existsSync(join(repoRoot, f)));
  return Math.max(...files.map((f) => statSync(join(repoRoot, f)).mtimeMs));
}

/** Builds dist/ unless it is newer than every source: .ci/run builds first; a developer's run builds when stale. */
function ensureBuild(): void {
  if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestSource()) return;
  execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit', timeout: 600_000 });
}

let env: TestEnv;
let itinera: ChildProcess | undefined;
let printed = '';
const scratch = mkdtempSync(join(tmpdir(), 'itinera-compiled-'));

beforeAll(async () => {
  ensureBuild();
  env = await createTestEnv();
});
afterAll(async () => {
  if (itinera && itinera.exitCode === null) {
    const exited = new Promise((r) => itinera!.once('exit', r));
    itinera.kill('SIGTERM');
    await exited;
  }
  await env?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the compiled build', () => {
  it('When `node dist/services/all-in-one.js` runs, then its gateway takes a real day and serves the trips e-mission made of it', async () => {
    const [webPort, consolePort] = [await freePort(), await freePort()];
    itinera = spawn(process.execPath, [ENTRY], {
      cwd: repoRoot,
      env: serviceEnv(env, {
        WEBSERVER_HOST: '127.0.0.1',
        WEBSERVER_PORT: String(webPort),
        CONSOLE_PORT: String(consolePort),
        CONSOLE_OIDC_DEV_PROVIDER: 'false',
        ITINERA_INFRA_DIR: scratch,
        ITINERA_LOG_DIR: scratch,
        ITINERA_INTAKE_LOG_DIR: scratch,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    itinera.stdout!.on('data', (b: Buffer) => (printed += b.toString('utf8')));
    itinera.stderr!.on('data', (b: Buffer) => (printed += b.toString('utf8')));
    const url = `http://127.0.0.1:${webPort}`;
    await waitFor(
      async () => {
        if (itinera!.exitCode !== null) throw new Error(`all-in-one exited ${itinera!.exitCode}:\n${printed}`);
        const ready = await fetch(`${url}/ready`).catch(() => undefined);
        return ready?.status === 200 ? true : undefined;
      },
      120_000,
      'the compiled gateway to be ready',
    );

    const gw = { post: postTo(url) };
    const user = 'compiled-build@example.org';
    expect((await gw.post('/profile/create', { user })).status).toBe(200);
    await pushEntries(gw, user, phoneEntries(DAY), 2000);
    const truth = loadGroundTruth(DAY);
    const trips = await settledTrips(gw, user, DAY_OF[DAY], truth.length);
    expect(trips).toHaveLength(truth.length);
    // Pushed in batches, as a phone does: e-mission's own tolerance for batched data applies (evaluate-trips.ts).
    trips.forEach((t, i) =>
      expect(
        matches(
          {
            startTs: t.properties.start_ts,
            endTs: t.properties.end_ts,
            startLoc: t.properties.start_loc.coordinates,
            endLoc: t.properties.end_loc.coordinates,
          },
          fromGroundTruth(truth[i]!),
        ),
        `trip ${i}`,
      ).toBe(true),
    );
    // Every service the build starts stayed up: a crash would show as a restart line from all-in-one.
    expect(printed).not.toMatch(/exited \(.*\); restarting/);
    expect(readFileSync(join(scratch, 'services.pid'), 'utf8')).toBe(String(itinera.pid));
  });
});
