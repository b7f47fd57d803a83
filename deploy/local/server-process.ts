/**
 * One server of the local stack as a process: resolve its jars, write its configuration, launch it detached,
 * wait for it to answer, stop it. `stack.ts` runs the three of them; the fault tests run private copies
 * (test/helpers/private-server.ts) that they can stop and restart without disturbing other tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import { StackError } from '../../shared/errors/index.js';
import { isInstalled, launchArgs, LOCAL_KAFKA_SASL, type LocalAddresses, type ServerSpec } from './servers.js';
import { probe } from './readiness.js';

/** The server templates and Maven poms (deploy/local/ in the repository, also when this runs compiled from dist/). */
const templates = join(repoRoot, 'deploy', 'local');

export interface StackContext {
  config: Config;
  infraDir: string;
  java: string;
  addresses: LocalAddresses;
  quiet: boolean;
  /** JVM heap flags instead of the server's default (private servers of the fault tests run smaller). */
  heap?: string;
}

export function say(ctx: Pick<StackContext, 'quiet'>, line: string): void {
  if (!ctx.quiet) process.stdout.write(`[stack] ${line}\n`);
}

/** Cassandra 5.0 runs on Java 11 or 17 only, so we look for a 17 explicitly rather than trust `java` on PATH. */
export function findJava(): string {
  const candidates = [
    process.env['ITINERA_JAVA'],
    process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'java') : undefined,
    '/usr/lib/jvm/java-17-openjdk-amd64/bin/java',
    'java',
  ].filter((c): c is string => Boolean(c));
  for (const candidate of candidates) {
    const out = spawnSync(candidate, ['-version'], { encoding: 'utf8' });
    if (out.status === 0 && /version "17\./.test(out.stderr)) return candidate;
  }
  throw new StackError('Java 17 not found: install OpenJDK 17 or set ITINERA_JAVA to its java binary');
}

export function pidFile(ctx: StackContext, spec: ServerSpec): string {
  return join(ctx.infraDir, spec.dir, 'server.pid');
}

export function logFile(ctx: StackContext, spec: ServerSpec): string {
  return join(ctx.infraDir, spec.dir, 'server.log');
}

export function readPid(ctx: StackContext, spec: ServerSpec): number | undefined {
  const file = pidFile(ctx, spec);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && isAlive(pid) ? pid : undefined;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process's resident memory (VmRSS) in MB; undefined once it is gone. */
export function residentMemoryMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

export function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return '(no log yet)';
  return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

function mvn(ctx: StackContext, args: string[], what: string): void {
  // Offline first: once ~/.m2 holds the artifacts, start-up needs no network at all.
  const offline = spawnSync('mvn', ['-B', '-ntp', '-q', '-o', ...args], { encoding: 'utf8' });
  if (offline.status === 0) return;
  say(ctx, `resolving ${what} from Maven Central (first run only)`);
  const online = spawnSync('mvn', ['-B', '-ntp', '-q', ...args], { encoding: 'utf8' });
  if (online.error) throw new StackError(`mvn could not be run (is Maven installed?): ${online.error.message}`);
  if (online.status !== 0) {
    throw new StackError(`mvn failed to resolve ${what}`, {
      details: { output: (online.stdout + online.stderr).slice(-3000) },
    });
  }
}

export function install(ctx: StackContext, spec: ServerSpec): void {
  const home = join(ctx.infraDir, spec.dir);
  if (isInstalled(spec, home)) return;
  mkdirSync(home, { recursive: true });
  const plugin = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
  if (spec.install.goal === 'copy-dependencies') {
    mvn(
      ctx,
      [
        '-f',
        join(templates, 'maven', spec.install.pom),
        `${plugin}:copy-dependencies`,
        '-DincludeScope=runtime',
        `-DoutputDirectory=${join(home, 'libs')}`,
      ],
      spec.name,
    );
  } else {
    mvn(
      ctx,
      [
        'com.googlecode.maven-download-plugin:download-maven-plugin:1.9.0:wget',
        `-Ddownload.url=${spec.install.url ?? ''}`,
        `-Ddownload.outputDirectory=${home}`,
      ],
      spec.name,
    );
    const archive = join(home, spec.install.url?.split('/').pop() ?? '');
    const untar = spawnSync('tar', ['xzf', archive, '-C', home], { encoding: 'utf8' });
    if (untar.status !== 0) throw new StackError(`could not unpack ${archive}: ${untar.stderr}`);
    rmSync(archive);
  }
  if (!isInstalled(spec, home)) throw new StackError(`${spec.name} is still missing after mvn ran`);
}

function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new StackError(`template variable ${key} has no value`);
    return String(value);
  });
}

function configure(ctx: StackContext, spec: ServerSpec): string[] {
  const home = join(ctx.infraDir, spec.dir);
  mkdirSync(join(home, 'data'), { recursive: true });
  mkdirSync(join(home, 'logs'), { recursive: true });
  const a = ctx.addresses;
  if (spec.name === 'kafka') {
    const properties = render(readFileSync(join(templates, 'kafka', 'server.properties'), 'utf8'), {
      KAFKA_HOST: a.kafka.host,
      KAFKA_PORT: a.kafka.port,
      KAFKA_CONTROLLER_PORT: a.kafka.controllerPort,
      KAFKA_SASL_PORT: a.kafka.saslPort ?? a.kafka.port + 2,
      KAFKA_SASL_USER: LOCAL_KAFKA_SASL.username,
      KAFKA_SASL_PASSWORD: LOCAL_KAFKA_SASL.password,
      KAFKA_DATA_DIR: join(home, 'data'),
    });
    writeFileSync(join(home, 'server.properties'), properties);
    const clusterIdFile = join(home, 'cluster-id');
    // Fixed once so the data folder stays valid.
    if (!existsSync(clusterIdFile)) writeFileSync(clusterIdFile, newKafkaClusterId());
    formatKafkaStorage(ctx.java, home, readFileSync(clusterIdFile, 'utf8').trim(), 'Kafka');
    return [];
  }
  if (spec.name === 'cassandra') {
    mkdirSync(join(home, 'conf'), { recursive: true });
    mkdirSync(join(home, 'tmp'), { recursive: true });
    const yaml = render(readFileSync(join(templates, 'cassandra', 'cassandra.yaml'), 'utf8'), {
      CASSANDRA_HOST: a.cassandra.host,
      CASSANDRA_PORT: a.cassandra.port,
      CASSANDRA_STORAGE_PORT: a.cassandra.storagePort,
      CASSANDRA_DATA_DIR: join(home, 'data'),
    });
    writeFileSync(join(home, 'conf', 'cassandra.yaml'), yaml);
    writeFileSync(join(home, 'conf', 'logback.xml'), readFileSync(join(templates, 'cassandra', 'logback.xml')));
    return readFileSync(join(templates, 'cassandra', 'jvm17.options'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
  }
  return [];
}

export function launch(ctx: StackContext, spec: ServerSpec): number {
  const home = join(ctx.infraDir, spec.dir);
  const jvmOptions = configure(ctx, spec);
  return launchDetached(
    ctx.java,
    launchArgs({ ...spec, heap: ctx.heap ?? spec.heap }, home, ctx.addresses, jvmOptions),
    {
      name: spec.name,
      home,
      log: logFile(ctx, spec),
      pidFile: pidFile(ctx, spec),
    },
  );
}

/**
 * Runs `java args` in the server's `home`, detached so that it outlives this process, its output appended to `log`;
 * writes its pid to `pidFile` and returns it. Shared by the single-node stack and the cluster's nodes.
 */
export function launchDetached(
  java: string,
  args: string[],
  server: { name: string; home: string; log: string; pidFile: string },
): number {
  const out = openSync(server.log, 'a');
  const child = spawn(java, args, {
    cwd: server.home,
    detached: true,
    stdio: ['ignore', out, out],
    // Fewer glibc malloc arenas keep Cassandra's resident memory near its heap plus off-heap budget.
    env: { ...process.env, MALLOC_ARENA_MAX: '4' },
  });
  child.unref();
  if (child.pid === undefined) throw new StackError(`${server.name} did not start`);
  writeFileSync(server.pidFile, String(child.pid));
  return child.pid;
}

export async function waitReady(ctx: StackContext, spec: ServerSpec, pid: number): Promise<number> {
  const started = Date.now();
  const deadline = started + spec.readyTimeoutSeconds * 1000;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) {
      throw new StackError(
        `${spec.name} exited during start-up. Last lines of ${logFile(ctx, spec)}:\n${tail(logFile(ctx, spec))}`,
      );
    }
    if (await probe(spec.name, ctx.config)) return (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new StackError(
    `${spec.name} not ready after ${spec.readyTimeoutSeconds} s. Last lines of ${logFile(ctx, spec)}:\n${tail(logFile(ctx, spec))}`,
  );
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function terminate(pid: number, graceMs: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/** Stops one server: SIGTERM, then SIGKILL after `graceMs`. Cassandra drains its memtables on SIGTERM. */
export async function stopServer(ctx: StackContext, spec: ServerSpec, graceMs = 30_000): Promise<number | undefined> {
  const pid = readPid(ctx, spec);
  if (pid !== undefined) await terminate(pid, graceMs);
  rmSync(pidFile(ctx, spec), { force: true });
  return pid;
}

/** Installs the server if its jars are missing, launches it, and waits until it answers; returns seconds taken. */
export async function startServer(ctx: StackContext, spec: ServerSpec): Promise<{ pid: number; seconds: number }> {
  install(ctx, spec);
  const pid = launch(ctx, spec);
  return { pid, seconds: await waitReady(ctx, spec, pid) };
}

/**
 * A Kafka cluster id: 16 random bytes in base64url, never beginning with '-' (Kafka's own Uuid.randomUuid draws again
 * in that case, since command-line tools would take such an id for an option).
 */
export function newKafkaClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * Formats a KRaft broker's storage in `home` (its `server.properties` already written) for cluster `clusterId`;
 * storage already formatted is left as it is. `what` names the broker in the error.
 */
export function formatKafkaStorage(java: string, home: string, clusterId: string, what: string): void {
  const format = spawnSync(
    java,
    [
      '-cp',
      `${join(home, 'libs')}/*`,
      'kafka.tools.StorageTool',
      'format',
      // One token: an id may begin with '-' (an older data folder's), which the tool would read as an option.
      `--cluster-id=${clusterId}`,
      '-c',
      join(home, 'server.properties'),
      '--ignore-formatted',
    ],
    { encoding: 'utf8' },
  );
  if (format.status !== 0)
    throw new StackError(`formatting ${what}'s storage failed: ${format.stdout}${format.stderr}`);
}
