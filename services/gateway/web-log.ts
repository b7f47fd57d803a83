import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import winston from 'winston';
import { specLineFormat, TO_STDOUT, type LogFiles } from '../../shared/logger/index.js';

export type WebLog = winston.Logger;

/**
 * The web server log of the spec: `<log dir>/webserver.log`, lines `<datetime,ms>:<LEVEL>:<thread_id>:<message>`
 * (Python logging's `%(asctime)s:%(levelname)s:%(thread)d:%(message)s`), rotated by size (`webserver1.log` is the
 * newest rotated file), its errors also in `webserver-errors.log`. With the directory `-` (containers) every line goes
 * to standard output instead, beside the START/END lines the gateway always prints there.
 */
export function createWebLog(files: LogFiles, level: string): WebLog {
  if (files.dir === TO_STDOUT)
    return winston.createLogger({
      level,
      format: specLineFormat(),
      transports: [new winston.transports.Stream({ stream: process.stdout })],
    });
  mkdirSync(files.dir, { recursive: true });
  return winston.createLogger({
    level,
    format: specLineFormat(),
    transports: [
      new winston.transports.File({
        filename: join(files.dir, 'webserver.log'),
        maxsize: files.maxBytes,
        maxFiles: files.maxFiles,
        tailable: true,
      }),
      new winston.transports.File({
        filename: join(files.dir, 'webserver-errors.log'),
        level: 'error',
        maxsize: files.maxBytes,
        maxFiles: files.maxFiles,
        tailable: true,
      }),
    ],
  });
}
