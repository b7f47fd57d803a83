import winston from 'winston';
import { logLevel, type logCreator } from 'kafkajs';
import { webLogLine, webLogLines } from './spec-log-format.js';

export type Logger = winston.Logger;

export interface LoggerOptions {
  /** Lowest level written. @defaultValue `info` */
  level?: string;
  /** Service or component name, added to every line. */
  component: string;
  /** JSON lines (production) or a short human line (a terminal). @defaultValue JSON unless stderr is a TTY */
  pretty?: boolean;
}

/**
 * Structured logs on standard error, so standard output stays free for the spec's START/END lines.
 * Callers pass a fixed message and a metadata object: `log.warn('Conversion failed', { key, reason })`.
 */
export function createLogger({ level = 'info', component, pretty = process.stderr.isTTY }: LoggerOptions): Logger {
  const format = pretty
    ? winston.format.combine(
        winston.format.timestamp(),
        winston.format.printf(({ timestamp, level: l, message, component: c, ...meta }) => {
          const rest = Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : '';
          return `${String(timestamp)} ${l} [${String(c)}] ${String(message)}${rest}`;
        }),
      )
    : winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json());
  return winston.createLogger({
    level,
    defaultMeta: { component },
    format,
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
  });
}

const kafkaToWinston: Record<number, string> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
  [logLevel.NOTHING]: 'debug',
};

/** Routes kafkajs' own log lines into our logger, under `component: kafkajs`, with kafkajs' namespace kept. */
export function kafkajsLogCreator(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log }) => {
      const { message, ...extra } = log;
      child.log(kafkaToWinston[level] ?? 'info', String(message), { namespace, ...extra });
    };
}

/** A symbol, so no caller's metadata named `lines` is ever taken for them. */
const LINES = Symbol.for('itinera.log.lines');

/**
 * The winston format of the spec's log files (webserver.log, intake_<n>.log.gz). Node runs one JS thread per
 * process, so the process id stands in for the thread id: it tells interleaved processes apart. A record carrying
 * `lines` (logLines) is written as those lines, each with its own prefix.
 */
export function specLineFormat(): winston.Logform.Format {
  return winston.format.printf((info) => {
    const { level, message } = info;
    const lines = (info as Record<symbol, unknown>)[LINES];
    return Array.isArray(lines)
      ? webLogLines(Date.now(), level, process.pid, lines as string[])
      : webLogLine(Date.now(), level, process.pid, String(message));
  });
}

/**
 * Many lines of a spec log as one record: the gateway writes a line per entry of a put (10,000 of them), and one
 * winston record per line cost more CPU than the put's parsing and, with the file behind, held hundreds of
 * thousands of pending records in memory.
 */
export function logLines(logger: winston.Logger, level: string, lines: readonly string[]): void {
  if (lines.length > 0) logger.log({ level, message: '', [LINES]: lines });
}
