import type { Producer } from 'kafkajs';
import pLimit from 'p-limit';

/**
 * An idempotent kafkajs producer made safe to share: sends run one at a time, and after a send fails the next one
 * goes through a fresh producer (a new producer id). Both close ways in which kafkajs 2.2 acknowledges records it
 * never wrote.
 *
 * kafkajs numbers each partition's records when it builds a produce request and, when the request fails, takes the
 * numbers back, then retries after a pause or gives up. A failed request may still have been written: the broker
 * was killed after replicating it and before answering, or one partition of a request was written while another
 * was refused (kafkajs fails the whole request, and takes back every partition's numbers). A later batch of the
 * same partition that gets the same numbers is, for the broker, a duplicate of the written one whenever both hold
 * as many records, and is acknowledged without being written: an acknowledged put lost (the cluster suite lost one
 * 50-entry put this way).
 * - One send at a time: a failed request's own retry is the next to use its numbers, and is then a true duplicate
 *   or a first write. A producer had one request at a time on each broker's connection already (kafkajs'
 *   idempotence needs it); what is lost is overlap across brokers, which a put (one partition) never had.
 * - A fresh producer after a failure: numbers taken back by a send that gave up are never handed out again; the
 *   caller retries (a phone after its 503, a worker's batch), and a record written twice is one row downstream,
 *   every store upserting by the entry's identity.
 */
export function safeIdempotentProducer(make: () => Producer): Producer {
  let current = make();
  let failed = false;
  let connectWanted = false;
  const listeners: { event: string; listener: (e: unknown) => void; remove: () => void }[] = [];
  const queue = pLimit(1);

  async function renew(): Promise<void> {
    const old = current;
    current = make();
    // The owner's listeners move to the new producer first, so the old one's disconnection reaches nobody: for its
    // owner the producer never went away.
    for (const l of listeners) {
      l.remove();
      l.remove = (current.on as (event: string, listener: (e: unknown) => void) => () => void)(l.event, l.listener);
    }
    // Not awaited: a producer that failed may take its time to let go of a dead broker's connection.
    void old.disconnect().catch(() => undefined);
    if (connectWanted) await current.connect();
    // The owner may have disconnected while the fresh producer was connecting: it stays disconnected then.
    if (!connectWanted) await current.disconnect();
    failed = false;
  }

  const queued = <T>(work: (producer: Producer) => Promise<T>): Promise<T> =>
    queue(async () => {
      // Once the owner has disconnected, sends fail as kafkajs fails them; renewing then would only make producers.
      if (failed && connectWanted) await renew();
      try {
        return await work(current);
      } catch (err) {
        failed = true;
        throw err;
      }
    });

  const producer: Producer = {
    send: (record) => queued((p) => p.send(record)),
    sendBatch: (batch) => queued((p) => p.sendBatch(batch)),
    async connect() {
      connectWanted = true;
      await current.connect();
    },
    async disconnect() {
      connectWanted = false;
      await current.disconnect();
    },
    isIdempotent: () => current.isIdempotent(),
    events: current.events,
    on: ((event: string, listener: (e: unknown) => void) => {
      const entry = {
        event,
        listener,
        remove: (current.on as (event: string, listener: (e: unknown) => void) => () => void)(event, listener),
      };
      listeners.push(entry);
      return () => {
        const at = listeners.indexOf(entry);
        if (at < 0) return;
        entry.remove();
        listeners.splice(at, 1);
      };
    }) as Producer['on'],
    transaction: () => current.transaction(),
    logger: () => current.logger(),
  };
  return producer;
}
