import { spawn } from 'node:child_process';
import { serviceNodeArgs } from '../../../shared/config/repo-root.js';
import { fail } from '../session.js';

/** `itinera intake <n>`: n converter and n trip-builder workers as child processes until Ctrl-C. */
export async function intake(n: number): Promise<number> {
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
