/**
 * `npm start`: the whole service on one machine, each service in its own process as in production. A service
 * that dies is restarted after a second (its Kafka offsets make that safe); Ctrl-C stops them all.
 * Compiled (`node dist/services/all-in-one.js`, what `npm start` runs) it starts the compiled services; run
 * from the sources (`npx tsx services/all-in-one.ts`, development) it starts their sources through tsx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadConfig, refuseExposure } from '../shared/config/index.js';
import { repoRoot, serviceNodeArgs } from '../shared/config/repo-root.js';

// Each service would refuse an exposed development setting and be restarted every second: say it once, here.
const config = loadConfig();
try {
  for (const component of ['gateway', 'console', 'worker'] as const)
    refuseExposure(config, component, (line) => process.stderr.write(`${line}\n`));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

const services = [
  { name: 'gateway', args: serviceNodeArgs('gateway') },
  { name: 'converter', args: serviceNodeArgs('converter', '0') },
  { name: 'trip-builder', args: serviceNodeArgs('trip-builder', '0') },
  { name: 'console', args: serviceNodeArgs('console') },
  // The development login for the console (conf/net/console.conf, oidc.dev_provider); never in production.
  ...(config.console.oidc.devProvider ? [{ name: 'dev-oidc', args: serviceNodeArgs('console/dev-oidc') }] : []),
];
const running = new Map<string, ChildProcess>();
let stopping = false;

function start(service: (typeof services)[number]): void {
  const child = spawn(process.execPath, service.args, { stdio: 'inherit' });
  running.set(service.name, child);
  child.once('exit', (code, signal) => {
    running.delete(service.name);
    if (stopping) return;
    process.stderr.write(`${service.name} exited (${signal ?? code}); restarting in 1 s\n`);
    setTimeout(() => start(service), 1000);
  });
}

// `npm stop` (deploy/local/stack.ts down) reads this file to stop the services before the servers.
const pidFile = join(resolve(process.env['ITINERA_INFRA_DIR'] ?? join(repoRoot, '.infra')), 'services.pid');
mkdirSync(dirname(pidFile), { recursive: true });
writeFileSync(pidFile, String(process.pid));
process.once('exit', () => rmSync(pidFile, { force: true }));

for (const service of services) start(service);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    for (const child of running.values()) child.kill('SIGTERM');
    const exitWhenDone = setInterval(() => running.size === 0 && process.exit(0), 100);
    setTimeout(() => {
      clearInterval(exitWhenDone);
      for (const child of running.values()) child.kill('SIGKILL');
      process.exit(0);
    }, 8000).unref();
  });
}
