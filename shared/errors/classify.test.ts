import * as platformatic from '@platformatic/kafka';
import cassandra from 'cassandra-driver';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError, ValidationError } from './app-error.js';
import { isOutage, isRecordRefusal, recordRefusal } from './classify.js';

const { errors: driver, types } = cassandra;
const codes = types.responseErrorCodes;
const k = kafkajs;

// What kafkajs' retrier throws when it gives up at once (its typings omit the options argument).
const NonRetriable = k.KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: Error }) => Error;
// The driver raises DriverError itself ("Socket was closed"); its typings declare it abstract.
const DriverError = driver.DriverError as unknown as new (message: string) => Error;
const protocol = (type: string, retriable: boolean) =>
  new k.KafkaJSProtocolError({ message: type, type, code: 1, retriable } as unknown as Error);

// @platformatic/kafka's errors as its producer reports them: a broker's answer by its protocol id, and the chain its
// retrier gives up with.
const p = platformatic;
const answer = (id: string) => new p.ProtocolError(id);
const gaveUp = (...errors: Error[]) => new p.MultipleErrors('produce failed 6 times.', errors);
const produceFailed = (...errors: Error[]) => new p.MultipleErrors('Producing messages failed.', errors);

describe('isOutage', () => {
  it.each<[string, unknown, boolean]>([
    ['DependencyUnavailableError', new DependencyUnavailableError('x'), true],
    ['ValidationError', new ValidationError('x'), false],
    ['NoHostAvailableError', new driver.NoHostAvailableError({}), true],
    ['OperationTimedOutError', new driver.OperationTimedOutError('x'), true],
    ['BusyConnectionError', new driver.BusyConnectionError('h', 1, 1), true],
    ['ResponseError unavailableException', new driver.ResponseError(codes.unavailableException, 'x'), true],
    ['ResponseError writeTimeout', new driver.ResponseError(codes.writeTimeout, 'x'), true],
    ['ResponseError readTimeout', new driver.ResponseError(codes.readTimeout, 'x'), true],
    ['ResponseError overloaded', new driver.ResponseError(codes.overloaded, 'x'), true],
    ['ResponseError isBootstrapping', new driver.ResponseError(codes.isBootstrapping, 'x'), true],
    ['ResponseError truncateError', new driver.ResponseError(codes.truncateError, 'x'), true],
    // A message that does not say "Invalid" is still an invalid request: the code decides.
    ['ResponseError invalid', new driver.ResponseError(codes.invalid, 'Key may not be empty'), false],
    ['ResponseError syntaxError', new driver.ResponseError(codes.syntaxError, 'x'), false],
    ['ResponseError unauthorized', new driver.ResponseError(codes.unauthorized, 'x'), false],
    ['ResponseError configError', new driver.ResponseError(codes.configError, 'x'), false],
    ['ResponseError alreadyExists', new driver.ResponseError(codes.alreadyExists, 'x'), false],
    ['ResponseError writeFailure', new driver.ResponseError(codes.writeFailure, 'x'), false],
    ['ArgumentError', new driver.ArgumentError('x'), false],
    [
      'a connection lost under a request',
      Object.assign(new DriverError('Socket was closed'), { isSocketError: true }),
      true,
    ],
    ['DriverError', new DriverError('x'), false],
    ['KafkaJSConnectionError', new k.KafkaJSConnectionError('x'), true],
    ['KafkaJSRequestTimeoutError', new k.KafkaJSRequestTimeoutError('x'), true],
    [
      'KafkaJSNumberOfRetriesExceeded',
      new k.KafkaJSNumberOfRetriesExceeded(new k.KafkaJSConnectionError('x'), { retryCount: 5, retryTime: 1 }),
      true,
    ],
    ['retriable protocol error (NOT_ENOUGH_REPLICAS)', protocol('NOT_ENOUGH_REPLICAS', true), true],
    ['MESSAGE_TOO_LARGE', protocol('MESSAGE_TOO_LARGE', false), false],
    [
      'MESSAGE_TOO_LARGE wrapped by the retrier',
      new NonRetriable(protocol('MESSAGE_TOO_LARGE', false), { cause: protocol('MESSAGE_TOO_LARGE', false) }),
      false,
    ],
    ['TypeError wrapped by the retrier', new NonRetriable(new TypeError('x'), { cause: new TypeError('x') }), false],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), true],
    ['fetch() failing to connect', new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }), true],
    [
      'the registry client, no response (its status 400)',
      Object.assign(new Error('x'), { status: 400, url: 'http://r/schemas/ids/1' }),
      true,
    ],
    ['the registry client, 503', Object.assign(new Error('x'), { status: 503, url: 'http://r/schemas/ids/1' }), true],
    [
      'the registry client, unknown schema id (404)',
      Object.assign(new Error('x'), { status: 404, url: 'http://r/schemas/ids/1' }),
      false,
    ],
    ['@platformatic/kafka NetworkError', new p.NetworkError('Connection closed'), true],
    ['@platformatic/kafka TimeoutError', new p.TimeoutError('Request timed out'), true],
    ['@platformatic/kafka a request timed out, in its chain', produceFailed(gaveUp(new p.TimeoutError('x'))), true],
    [
      '@platformatic/kafka giving up on a broker away',
      produceFailed(gaveUp(new p.NetworkError('x'), new p.NetworkError('x'))),
      true,
    ],
    ['@platformatic/kafka NOT_ENOUGH_REPLICAS (retriable)', answer('NOT_ENOUGH_REPLICAS'), true],
    ['@platformatic/kafka MESSAGE_TOO_LARGE', produceFailed(gaveUp(answer('MESSAGE_TOO_LARGE'))), false],
    [
      '@platformatic/kafka a refusal beside an outage',
      produceFailed(gaveUp(answer('MESSAGE_TOO_LARGE')), gaveUp(new p.NetworkError('x'))),
      false,
    ],
    ['@platformatic/kafka TOPIC_AUTHORIZATION_FAILED', answer('TOPIC_AUTHORIZATION_FAILED'), false],
    ['@platformatic/kafka AuthenticationError', new p.AuthenticationError('x'), false],
    ['@platformatic/kafka UserError (a value it could not serialize)', new p.UserError('x'), false],
    // Names and messages that only look like outages are not.
    [
      'an Error named like the driver',
      Object.assign(new Error('timed out'), { name: 'OperationTimedOutError' }),
      false,
    ],
    [
      'an Error named like kafkajs',
      Object.assign(new Error('x'), { name: 'KafkaJSConnectionError', retriable: true }),
      false,
    ],
    ['TypeError', new TypeError('x'), false],
    ['a string', 'timeout', false],
    ['undefined', undefined, false],
  ])('%s → %s', (_name, err, outage) => {
    expect(isOutage(err)).toBe(outage);
  });

  it('When causes form a loop, then it still answers', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(isOutage(a)).toBe(false);
  });
});

describe('isRecordRefusal', () => {
  it.each<[string, unknown, boolean]>([
    ['MESSAGE_TOO_LARGE', protocol('MESSAGE_TOO_LARGE', false), true],
    [
      'MESSAGE_TOO_LARGE wrapped by the retrier',
      new NonRetriable(protocol('MESSAGE_TOO_LARGE', false), { cause: protocol('MESSAGE_TOO_LARGE', false) }),
      true,
    ],
    ['INVALID_RECORD', protocol('INVALID_RECORD', false), true],
    [
      'OUT_OF_ORDER_SEQUENCE_NUMBER (the producer, not the record)',
      protocol('OUT_OF_ORDER_SEQUENCE_NUMBER', false),
      false,
    ],
    ['KafkaJSConnectionError', new k.KafkaJSConnectionError('x'), false],
    [
      '@platformatic/kafka MESSAGE_TOO_LARGE, deep in its chain',
      produceFailed(gaveUp(answer('MESSAGE_TOO_LARGE'))),
      true,
    ],
    ['@platformatic/kafka OUT_OF_ORDER_SEQUENCE_NUMBER', gaveUp(answer('OUT_OF_ORDER_SEQUENCE_NUMBER')), false],
    ['@platformatic/kafka NetworkError', new p.NetworkError('x'), false],
    ['an Error that only says so', new Error('MESSAGE_TOO_LARGE'), false],
  ])('%s → %s', (_name, err, refusal) => {
    expect(isRecordRefusal(err)).toBe(refusal);
  });
});

describe('recordRefusal', () => {
  it.each<[string, unknown, ReturnType<typeof recordRefusal>]>([
    [
      'MESSAGE_TOO_LARGE',
      protocol('MESSAGE_TOO_LARGE', false),
      { kafkaError: 'MESSAGE_TOO_LARGE', reason: 'too_large' },
    ],
    [
      'RECORD_LIST_TOO_LARGE wrapped by the retrier',
      new NonRetriable(protocol('RECORD_LIST_TOO_LARGE', false), { cause: protocol('RECORD_LIST_TOO_LARGE', false) }),
      { kafkaError: 'RECORD_LIST_TOO_LARGE', reason: 'too_large' },
    ],
    ['INVALID_TIMESTAMP', protocol('INVALID_TIMESTAMP', false), { kafkaError: 'INVALID_TIMESTAMP', reason: 'invalid' }],
    ['NOT_ENOUGH_REPLICAS (an outage, not a refusal)', protocol('NOT_ENOUGH_REPLICAS', true), undefined],
    // A type that only looks like one is no refusal: the table decides, not a suffix.
    ['FETCH_SESSION_TOO_LARGE', protocol('FETCH_SESSION_TOO_LARGE', false), undefined],
    ['an object that only carries a type', Object.assign(new Error('x'), { type: 'MESSAGE_TOO_LARGE' }), undefined],
    [
      '@platformatic/kafka RECORD_LIST_TOO_LARGE',
      produceFailed(gaveUp(answer('RECORD_LIST_TOO_LARGE'))),
      { kafkaError: 'RECORD_LIST_TOO_LARGE', reason: 'too_large' },
    ],
    [
      '@platformatic/kafka INVALID_RECORD',
      gaveUp(answer('INVALID_RECORD')),
      { kafkaError: 'INVALID_RECORD', reason: 'invalid' },
    ],
    ['an object that only carries an apiId', Object.assign(new Error('x'), { apiId: 'MESSAGE_TOO_LARGE' }), undefined],
  ])('%s', (_name, err, refusal) => {
    expect(recordRefusal(err)).toEqual(refusal);
  });
});
