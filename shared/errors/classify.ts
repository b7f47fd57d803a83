import { findErrorBy, GenericError, NetworkError, TimeoutError } from '@platformatic/kafka';
import cassandra from 'cassandra-driver';
import kafkajs from 'kafkajs';
import { AppError } from './app-error.js';

// kafkajs is CommonJS and spreads its error classes into its exports, which Node cannot see as named ESM exports.
const {
  KafkaJSBrokerNotFound,
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
  KafkaJSTimeout,
} = kafkajs;
type KafkaJSError = kafkajs.KafkaJSError;

/**
 * One answer to "is this an outage?": true when a dependency (Kafka, Cassandra, the schema registry) did not
 * answer or is overloaded, so the same request can succeed later (503 at the gateway, retry the batch in a worker).
 * False for everything else: a rejected value, an invalid request, a message too large, a bug. Those must not be
 * retried (a worker dead-letters the entry, the gateway answers 4xx or 500).
 *
 * Decided by error classes and codes the clients document, never by message text or name prefixes: messages change
 * between versions and names are easy to imitate.
 */
export function isOutage(err: unknown): boolean {
  if (err instanceof AppError) return err.retriable;
  if (err instanceof cassandra.errors.DriverError) return isCassandraOutage(err);
  if (err instanceof KafkaJSError) return isKafkaOutage(err);
  if (isPlatformaticError(err)) return isPlatformaticOutage(err);
  return isHttpOutage(err) || isNetworkFailure(err);
}

/**
 * An HTTP client's error (the schema registry's client: a numeric `status` and the `url` asked): the server is
 * away or overloaded on 5xx, 408 and 429. Its client (mappersmith) reports a request that got no response at all
 * (connection refused, reset, DNS) as status 400, so 400 counts too: the registry answers the requests we make
 * (schema by id, latest id of a subject) with 200 or 404, never 400.
 */
function isHttpOutage(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { status, url } = err as { status?: unknown; url?: unknown };
  if (typeof status !== 'number' || typeof url !== 'string') return false;
  return status >= 500 || status === 400 || status === 408 || status === 429;
}

const { responseErrorCodes: codes } = cassandra.types;

/**
 * Server answers that mean "not now": too few replicas, a replica too slow or overloaded, a node still joining,
 * a truncate that did not complete everywhere. Every other code (invalid, syntaxError, unauthorized, configError,
 * alreadyExists, readFailure, writeFailure, serverError, protocolError...) is a property of the request.
 */
const CASSANDRA_OUTAGE_CODES: ReadonlySet<number> = new Set([
  codes.unavailableException,
  codes.overloaded,
  codes.isBootstrapping,
  codes.truncateError,
  codes.writeTimeout,
  codes.readTimeout,
]);

function isCassandraOutage(err: cassandra.errors.DriverError): boolean {
  if (err instanceof cassandra.errors.ResponseError) return CASSANDRA_OUTAGE_CODES.has(err.code);
  // The driver flags a connection lost under a request ("Socket was closed") this way, and retries on it itself.
  if ((err as { isSocketError?: unknown }).isSocketError === true) return true;
  return (
    err instanceof cassandra.errors.NoHostAvailableError ||
    err instanceof cassandra.errors.OperationTimedOutError ||
    err instanceof cassandra.errors.BusyConnectionError
  );
}

/**
 * kafkajs says itself whether an error is worth retrying (`retriable`). Two wrappers need unwrapping: its retrier
 * gives up on a retriable cause with `KafkaJSNumberOfRetriesExceeded` (the broker stayed away: an outage), and
 * wraps a non-retriable cause in `KafkaJSNonRetriableError` (decided by that cause, e.g. MESSAGE_TOO_LARGE).
 * Connection failures and timeouts are outages whatever flag their class carries.
 */
function isKafkaOutage(err: KafkaJSError): boolean {
  if (
    err instanceof KafkaJSNumberOfRetriesExceeded ||
    err instanceof KafkaJSConnectionError ||
    err instanceof KafkaJSRequestTimeoutError ||
    err instanceof KafkaJSTimeout ||
    err instanceof KafkaJSBrokerNotFound ||
    err instanceof KafkaJSGroupCoordinatorNotFound
  )
    return true;
  if (err instanceof KafkaJSNonRetriableError && err.cause !== undefined && err.cause !== err) {
    return err.cause instanceof KafkaJSError ? isKafkaOutage(err.cause) : isNetworkFailure(err.cause);
  }
  return err.retriable;
}

function isPlatformaticError(err: unknown): err is Error {
  return err instanceof Error && GenericError.isGenericError(err);
}

/**
 * @platformatic/kafka (the gateway's publisher, shared/kafka/keyed-producer.ts) marks each error with `canRetry`,
 * and gives up on a chain of them with one error holding them all. A broker that did not answer, or answered too
 * late, is an outage; a refused record is not, whatever else the chain holds; otherwise the library's own rule
 * decides: retriable only when some error in the chain says it can be retried and none says it cannot. The library
 * marks a timed-out request not retriable (it may have been written, and it does not send it again itself); for the
 * caller it is an outage all the same: the phone sends the put again, and a record written twice is one row.
 */
function isPlatformaticOutage(err: Error): boolean {
  if (recordRefusal(err)) return false;
  if (NetworkError.isRetryable(err) || inChain(err, (e) => e instanceof TimeoutError)) return true;
  return findErrorBy(err, 'canRetry', true) !== null && findErrorBy(err, 'canRetry', false) === null;
}

/**
 * Kafka's answers that refuse one record itself, so sending it again can never succeed, while other records go
 * through: too large, invalid, a timestamp or a topic policy it breaks. Other non-retriable answers (a producer's
 * sequence or id lost, authorization) concern the producer, not the record, and are no reason to drop anything.
 */
const KAFKA_RECORD_REFUSALS: ReadonlyMap<string, RecordRefusal['reason']> = new Map([
  ['MESSAGE_TOO_LARGE', 'too_large'],
  ['RECORD_LIST_TOO_LARGE', 'too_large'],
  ['INVALID_RECORD', 'invalid'],
  ['INVALID_TIMESTAMP', 'invalid'],
  ['POLICY_VIOLATION', 'invalid'],
] as const);

/** Why Kafka refused a record: its protocol error type (`MESSAGE_TOO_LARGE`, …) and what that means for the sender. */
export interface RecordRefusal {
  kafkaError: string;
  /** `too_large`: fewer or smaller records would pass (a 413); `invalid`: this record never will (a 400). */
  reason: 'too_large' | 'invalid';
}

/**
 * The refusal when Kafka refused a record for what it is (see KAFKA_RECORD_REFUSALS), else undefined: read from
 * the protocol error's type under kafkajs' retrier wrapper, never from a message.
 */
export function recordRefusal(err: unknown, depth = 0): RecordRefusal | undefined {
  if (isPlatformaticError(err)) return platformaticRefusal(err);
  if (!(err instanceof KafkaJSError) || depth > 4) return undefined;
  if (err instanceof KafkaJSProtocolError) {
    const reason = KAFKA_RECORD_REFUSALS.get(err.type);
    return reason && { kafkaError: err.type, reason };
  }
  if (err instanceof KafkaJSNonRetriableError && err.cause !== err) return recordRefusal(err.cause, depth + 1);
  return undefined;
}

/** True when `err` or an error it holds (as a list of errors or a cause, a few levels deep) passes `test`. */
function inChain(err: unknown, test: (e: unknown) => boolean, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  if (test(err)) return true;
  const { errors, cause } = err as { errors?: unknown; cause?: unknown };
  if (Array.isArray(errors) && errors.some((e) => inChain(e, test, depth + 1))) return true;
  return cause !== err && inChain(cause, test, depth + 1);
}

/** The refusal named by a protocol error anywhere in a @platformatic/kafka error's chain (its `apiId`). */
function platformaticRefusal(err: Error): RecordRefusal | undefined {
  for (const [kafkaError, reason] of KAFKA_RECORD_REFUSALS)
    if (findErrorBy(err, 'apiId', kafkaError)) return { kafkaError, reason };
  return undefined;
}

/** True when Kafka refused a record for what it is: a dead letter in a worker, a 413 or 400 at the gateway. */
export function isRecordRefusal(err: unknown): boolean {
  return recordRefusal(err) !== undefined;
}

/** Socket-level failures (the schema registry's HTTP client, a raw connection): Node's documented error codes. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

function isNetworkFailure(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  // fetch() reports a refused connection as a TypeError whose cause carries the code.
  return isNetworkFailure((err as { cause?: unknown }).cause, depth + 1);
}
