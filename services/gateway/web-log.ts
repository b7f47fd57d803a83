import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import winston from 'winston';
import { specLineFormat } from '../../shared/logger/index.js';

export type WebLog = winston.Logger;

/**
 * The web server log of the spec: `<log dir>/webserver.log`, lines `<datetime,ms>:<LEVEL>:<thread_id>:<message>`
 * (Python logging's `%(asctime)s:%(levelname)s:%(thread)d:%(message)s`).
 */
export function createWebLog(dir: string, level: string): WebLog {
  mkdirSync(dir, { recursive: true });
  return winston.createLogger({
    level,
    format: specLineFormat(),
    transports: [
      new winston.transports.File({
        filename: join(dir, 'webserver.log'),
        maxsize: 1024 ** 3,
        maxFiles: 3,
        tailable: true,
      }),
      new winston.transports.File({
        filename: join(dir, 'webserver-errors.log'),
        level: 'error',
        maxsize: 1024 ** 3,
        maxFiles: 2,
      }),
    ],
  });
}
