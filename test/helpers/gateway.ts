import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createApp, type GatewayDeps } from '../../services/gateway/app.js';
import { composeGateway } from '../../services/gateway/compose.js';
import { createWebLog } from '../../services/gateway/web-log.js';
import type { TestEnv } from './test-env.js';
import type { Kafka } from 'kafkajs';

export interface RunningGateway {
  url: string;
  /** Everything the gateway printed on its standard output so far. */
  stdout(): string[];
  /** Lines of webserver.log so far. */
  webLog(): string[];
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * POSTs JSON to a gateway at `url` and reads its answer, JSON when it parses. `timeoutMs` aborts a request that
 * gets no answer (a gateway killed mid-request), which then rejects.
 */
export function postTo(url: string, { timeoutMs }: { timeoutMs?: number } = {}): RunningGateway['post'] {
  return async (path, body, headers = {}) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // left as text: the test asserts on it
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
}

/** The real gateway, wired to the test environment's servers, listening on a free port. */
export async function startGateway(
  env: TestEnv,
  overrides: Partial<GatewayDeps> & { kafka?: Kafka } = {},
): Promise<RunningGateway> {
  const logDir = mkdtempSync(join(tmpdir(), 'itinera-weblog-'));
  const webLog = createWebLog({ dir: logDir, maxBytes: 1024 ** 3, maxFiles: 3 }, 'debug');
  const out = new PassThrough();
  const printed: string[] = [];
  out.on('data', (chunk: Buffer) => printed.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const composed = composeGateway({
    config: env.config,
    cassandra: env.cassandra,
    kafka: overrides.kafka ?? env.kafka,
    webLog,
    sendTimeoutMs: 8000,
  });
  const app = createApp({ ...composed.deps, stdout: out, ...overrides });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    stdout: () => [...printed],
    webLog: () => {
      try {
        return readFileSync(join(logDir, 'webserver.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    post: postTo(url),
    async close() {
      await new Promise((r) => server.close(r));
      await composed.close();
      webLog.close();
    },
  };
}
