/**
 * `npm start`: the whole service on one machine, each service in its own process as in production. A service
 * that dies is restarted after a second (its Kafka offsets make that safe); Ctrl-C stops them all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const services = [
  { name: 'gateway', args: [join(here, 'gateway/main.ts')] },
  { name: 'converter', args: [join(here, 'converter/main.ts'), '0'] },
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

for (const service of services) start(service);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    for (const child of running.values()) child.kill('SIGTERM');
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
