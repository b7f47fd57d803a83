/**
 * Seconds a client is told to wait (`Retry-After`) before retrying, by why it was turned away. The phone app
 * retries a failed sync at its next sync interval anyway; these values matter for scripts and other clients.
 */
export const RETRY_AFTER_SECONDS = {
  /** Kafka, Cassandra or the registry did not answer: an outage or a failover takes tens of seconds. */
  dependency: 30,
  /** Too many puts already wait for a processing slot: each takes seconds. */
  putQueue: 30,
  /** The gateway holds its budget of request bodies: bodies drain within seconds. */
  bodyBudget: 10,
} as const;
