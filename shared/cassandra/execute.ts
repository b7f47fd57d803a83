import type cassandra from 'cassandra-driver';
import { consistencies, type CassandraClient } from './create-client.js';
import { DependencyUnavailableError } from '../errors/index.js';
import { isOutage } from '../errors/classify.js';

export type Params = cassandra.ArrayOrObject;

export interface Statement {
  query: string;
  params: Params;
}

/**
 * An outage (no host, a timeout, too few replicas: see isOutage) becomes a DependencyUnavailableError, which callers
 * retry; any other driver error (an invalid or oversized request) is thrown as it is, so callers can tell it apart.
 */
function wrap(err: unknown, query: string): never {
  if (isOutage(err))
    throw new DependencyUnavailableError('Cassandra did not answer', { cause: err, details: { query } });
  throw err;
}

/**
 * Every query goes through here: always prepared, always at an explicit consistency level. Reads, and writes that
 * are upserts by primary key, are marked idempotent: the driver then tries the next replica when a node's connection
 * drops or times out under a request (a node draining for a restart does exactly that). Unmarked, the driver hands
 * such an error straight to the caller, and a phone's put answered 503 during a clean rolling restart.
 */
export function createCql(client: CassandraClient) {
  /** Every statement: prepared, at LOCAL_QUORUM unless `options` say more, its outage wrapped. */
  async function execute(query: string, params: Params, options: cassandra.QueryOptions) {
    try {
      return await client.execute(query, params, { prepare: true, consistency: consistencies.localQuorum, ...options });
    } catch (err) {
      return wrap(err, query);
    }
  }
  return {
    read: (query: string, params: Params = [], options: { fetchSize?: number; pageState?: string } = {}) =>
      execute(query, params, { isIdempotent: true, ...options }),
    write: (query: string, params: Params) => execute(query, params, { isIdempotent: true }),
    /** Lightweight transaction (`IF NOT EXISTS`): not idempotent, serial consistency. */
    conditional: (query: string, params: Params) =>
      execute(query, params, { serialConsistency: consistencies.localSerial }),
    /** Upserts of one partition in one unlogged batch: one round trip, atomic within the partition. */
    async writeBatch(statements: Statement[]) {
      if (statements.length === 0) return;
      try {
        await client.batch(statements, {
          prepare: true,
          logged: false,
          consistency: consistencies.localQuorum,
          isIdempotent: true,
        });
      } catch (err) {
        wrap(err, statements[0]?.query ?? '');
      }
    },
    async *iterate(query: string, params: Params = [], fetchSize = 1000): AsyncGenerator<cassandra.types.Row> {
      let pageState: string | undefined;
      do {
        const rs = await this.read(query, params, { fetchSize, ...(pageState ? { pageState } : {}) });
        yield* rs.rows;
        pageState = rs.pageState ?? undefined;
      } while (pageState);
    },
  };
}
export type Cql = ReturnType<typeof createCql>;
