import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import winston from 'winston';
import { webLogLine } from './domain/call-log-format.js';

export type WebLog = winston.Logger;

/**
 * The web server log of the spec: `<log dir>/webserver.log`, lines `<datetime,ms>:<LEVEL>:<thread_id>:<message>`
 * (Python logging's `%(asctime)s:%(levelname)s:%(thread)d:%(message)s`). Node has one JS thread per process,
 * so the process id stands in for the thread id: it tells interleaved gateway processes apart.
 */
export function createWebLog(dir: string, level: string): WebLog {
  mkdirSync(dir, { recursive: true });
  const line = winston.format.printf(({ level: l, message }) => webLogLine(Date.now(), l, process.pid, String(message)));
  return winston.createLogger({
    level,
    format: line,
    transports: [
      new winston.transports.File({ filename: join(dir, 'webserver.log'), maxsize: 1024 ** 3, maxFiles: 3, tailable: true }),
      new winston.transports.File({ filename: join(dir, 'webserver-errors.log'), level: 'error', maxsize: 1024 ** 3, maxFiles: 2 }),
    ],
  });
}
