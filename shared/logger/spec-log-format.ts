/**
 * The spec's log line formats, shared by the gateway's call log and web server log and the pipeline's intake log. Python's `datetime.now()` prints local time as `2025-04-16 06:51:11.065932`;
 * the web log's `asctime` prints `2025-04-16 23:24:54,144`. Microseconds come from a high-resolution clock
 * offset so consecutive lines stay ordered.
 */
function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function localDate(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `YYYY-MM-DD HH:MM:SS.ffffff` in local time, from epoch microseconds. */
export function formatMicros(epochMicros: number): string {
  const ms = Math.floor(epochMicros / 1000);
  return `${localDate(ms)}.${pad(Math.floor(epochMicros % 1_000_000), 6)}`;
}

/** `YYYY-MM-DD HH:MM:SS,mmm` in local time, as Python logging's asctime. */
export function formatAsctime(epochMs: number): string {
  return `${localDate(epochMs)},${pad(Math.floor(epochMs % 1000), 3)}`;
}

/**
 * Control characters (line breaks above all), DEL and the Unicode line separators written as escapes: a value
 * that came from a request (a token, a key, a path) must never start a new line that looks like the server's own.
 */
export function escapeForLog(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export function startLine(epochMicros: number, method: string, path: string): string {
  return `START ${formatMicros(epochMicros)} ${escapeForLog(method)} ${escapeForLog(path)}`;
}

/** With no user known, the uuid field is empty (two spaces), as e-mission prints it. */
export function endLine(
  epochMicros: number,
  method: string,
  path: string,
  userUuid: string | null,
  durationSeconds: number,
): string {
  return `END ${formatMicros(epochMicros)} ${escapeForLog(method)} ${escapeForLog(path)} ${userUuid ?? ''} ${durationSeconds}`;
}

/** Python logging's level names, which e-mission's logs carry. */
const PYTHON_LEVELS: Record<string, string> = { error: 'ERROR', warn: 'WARNING', info: 'INFO', debug: 'DEBUG' };

/** `<asctime>:<LEVEL>:<thread_id>:<message>`, Python's `%(asctime)s:%(levelname)s:%(thread)d:%(message)s`. */
export function webLogLine(epochMs: number, level: string, threadId: number, message: string): string {
  return `${formatAsctime(epochMs)}:${PYTHON_LEVELS[level] ?? level.toUpperCase()}:${threadId}:${escapeForLog(message)}`;
}

/** Several messages logged at one instant: a line each, as webLogLine writes it, joined by line breaks. */
export function webLogLines(epochMs: number, level: string, threadId: number, messages: readonly string[]): string {
  const prefix = `${formatAsctime(epochMs)}:${PYTHON_LEVELS[level] ?? level.toUpperCase()}:${threadId}:`;
  return messages.map((m) => prefix + escapeForLog(m)).join('\n');
}
