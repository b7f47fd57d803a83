/**
 * `npm start`: the whole service on one machine, each service in its own process as in production. A service
 * that dies is restarted after a second (its Kafka offsets make that safe); Ctrl-C stops them all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const services = [
  { name: 'gateway', args: [join(here, 'gateway/main.ts')] },
  { name: 'converter', args: [join(here, 'converter/main.ts'), '0'] },
  { name: 'trip-builder', args: [join(here, 'trip-builder/main.ts'), '0'] },
];
const running = new Map<string, ChildProcess>();
let stopping = false;

function start(service: (typeof services)[number]): void {
  const child = spawn(process.execPath, ['--import', 'tsx', ...service.args], { stdio: 'inherit' });
  running.set(service.name, child);
  child.once('exit', (code, signal) => {
    running.delete(service.name);
    if (stopping) return;
    process.stderr.write(`${service.name} exited (${signal ?? code}); restarting in 1 s\n`);
    setTimeout(() => start(service), 1000);
  });
}

// `npm stop` (deploy/local/stack.ts down) reads this file to stop the services before the servers.
const pidFile = join(here, '..', '.infra', 'services.pid');
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
