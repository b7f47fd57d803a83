import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { topicName } from '../../shared/events/index.js';
import {
  createKeyedProducer,
  type KeyedProducer,
  type KeyedRecord,
  type WorkerClients,
} from '../../shared/kafka/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import { toPhoneRecord, type PhoneEntry } from './phone-entries.js';
import { createIntakeLog } from '../../shared/logger/intake-log.js';
import type { ConverterDeps } from '../../services/converter/handler.js';
import { runConverter, type RunningConverter } from '../../services/converter/run-converter.js';
import { composeConverterStores } from '../../services/converter/compose.js';
import {
  runTripBuilder,
  type RunningTripBuilder,
  type RunTripBuilderDeps,
} from '../../services/trip-builder/run-trip-builder.js';
import { composeTripBuilderStores } from '../../services/trip-builder/compose.js';
import { startGateway, type RunningGateway } from './gateway.js';
import { createTestEnv, serviceEnv, type TestEnv } from './test-env.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');

const intakeDir = mkdtempSync(join(tmpdir(), 'itinera-intake-'));
const intakeLogFiles = { dir: intakeDir, maxBytes: 100 * 1024 * 1024, maxFiles: 5 };

/** A producer for a test's input records, the project's own (shared/kafka/keyed-producer.ts); the test closes it. */
export function inputProducer(env: TestEnv, clientId = 'test-input'): KeyedProducer {
  return createKeyedProducer({ ...env.config.kafka, clientId });
}

/** A worker's Kafka clients on the test environment's servers: its own producer, which the worker closes. */
export function workerClients(env: TestEnv, clientId: string): WorkerClients {
  return { kafka: env.kafka, producer: inputProducer(env, clientId) };
}

/** A converter worker on the test environment's servers, in this process; `convert` replaces the rules. */
export function startConverter(env: TestEnv, convert?: ConverterDeps['convert']): Promise<RunningConverter> {
  return runConverter(workerClients(env, 'test-converter'), {
    codec: env.codec,
    ...composeConverterStores(env.cql, env.config.kafka.topicPrefix),
    topicPrefix: env.config.kafka.topicPrefix,
    logger: env.logger,
    intakeLog: createIntakeLog(intakeLogFiles, 0),
    ...(convert ? { convert } : {}),
  });
}

/** A trip-builder worker on the test environment's servers, in this process; `rebuild` replaces the rules. */
export function startTripBuilder(
  env: TestEnv,
  worker = 0,
  rebuild?: RunTripBuilderDeps['rebuild'],
): Promise<RunningTripBuilder> {
  return runTripBuilder(workerClients(env, `test-trip-builder-${worker}`), {
    codec: env.codec,
    ...composeTripBuilderStores(env.cql, env.config.kafka.topicPrefix),
    topicPrefix: env.config.kafka.topicPrefix,
    logger: env.logger,
    pipelineLog: createIntakeLog(intakeLogFiles, worker, 'info', 'trips'),
    now: () => Date.now() / 1000,
    ...(rebuild ? { rebuild } : {}),
  });
}

export function intakeLogDir(): string {
  return intakeDir;
}

/** A service's main.ts as its own process (so a test can SIGKILL it), output appended to `outFile`. */
export function startServiceProcess(env: TestEnv, script: string, outFile: string, logDir: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(repoRoot, script), '0'], {
    env: serviceEnv(env, { ITINERA_INTAKE_LOG_DIR: logDir }),
    stdio: ['ignore', openSync(outFile, 'a'), openSync(outFile, 'a')],
  });
}

/** Phone entries as the gateway would publish them for `user`: keyed by user, Avro-encoded for the usercache topic. */
export async function usercacheMessages(
  env: TestEnv,
  user: string,
  entries: readonly PhoneEntry[],
): Promise<KeyedRecord[]> {
  const encode = await env.codec.encoderFor(valueSubject(topicName(env.config.kafka.topicPrefix, 'usercache')));
  const key = Buffer.from(user);
  return entries.map((e) => ({ key, value: encode(toPhoneRecord(user, e)) }));
}

/**
 * The operator CLI, as `npx itinera`, pointed at this test's keyspace and topics; resolves to what it printed, or
 * rejects with its exit `status`, `stdout` and `stderr`. Asynchronous, so the services running in the test's
 * process keep serving and heartbeating while it runs (a blocked event loop cost a rebalance on a busy machine).
 */
export function runCli(env: TestEnv, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  return new Promise((resolvePrinted, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'services/cli/main.ts'), ...args],
      { env: serviceEnv(env, extraEnv), maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolvePrinted(stdout);
        process.stderr.write(stderr);
        reject(Object.assign(error, { status: typeof error.code === 'number' ? error.code : null, stdout, stderr }));
      },
    );
  });
}

/** A gateway, a converter and a trip builder in this process on a private slice of the real servers. */
export interface InProcessPipeline {
  env: TestEnv;
  gw: RunningGateway;
  stop(): Promise<void>;
}

export async function startInProcessPipeline(overrides: Record<string, string> = {}): Promise<InProcessPipeline> {
  const env = await createTestEnv(overrides);
  const gw = await startGateway(env);
  const converter = await startConverter(env);
  const builder = await startTripBuilder(env);
  return {
    env,
    gw,
    async stop() {
      await builder.stop();
      await converter.stop();
      await gw.close();
      await env.dispose();
    },
  };
}

/** A kill as it landed: the signal the process's exit reported, and what it left uncommitted. */
export interface Kill {
  signal: NodeJS.Signals | null;
  /** Records in the topic before the kill that the group had still not committed once the process was gone. */
  uncommitted: number;
}

/**
 * SIGKILLs `child`, the only member of its consumer group, which had `high` records in its topic; counts what it
 * left uncommitted once its exit is seen. A kill that interrupted work leaves some; a kill after the work, none.
 */
export async function killMidWork(
  child: ChildProcess,
  high: number,
  progress: () => Promise<{ committed: number }>,
): Promise<Kill> {
  const exited = new Promise<NodeJS.Signals | null>((r) =>
    child.exitCode !== null || child.signalCode !== null ? r(child.signalCode) : child.once('exit', (_, s) => r(s)),
  );
  child.kill('SIGKILL');
  const signal = await exited;
  // Nothing commits for the group now that its only member is gone.
  return { signal, uncommitted: high - (await progress()).committed };
}
