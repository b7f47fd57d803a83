/** How long stopping may take before the process exits anyway. */
const HARD_TIMEOUT_MS = 10_000;

/**
 * What a service's main.ts does on SIGTERM or SIGINT: runs `stop` (a worker leaves its Kafka group, so its
 * partitions are handed over at once; clients close) and exits 0. If stopping hangs (Kafka or Cassandra already
 * gone), the process exits 0 after `hardTimeoutMs` regardless; if it fails, it exits 1.
 */
export function stopOnSignals(stop: (signal: NodeJS.Signals) => Promise<void>, hardTimeoutMs = HARD_TIMEOUT_MS): void {
  const onSignal = (signal: NodeJS.Signals) => {
    setTimeout(() => process.exit(0), hardTimeoutMs).unref();
    stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`stopping on ${signal} failed:`, err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
