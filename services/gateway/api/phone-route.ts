import type { z } from 'zod';

/** The groups the document shows its operations in, one per part of the phone API. */
export const PHONE_TAGS = {
  profile: 'Registration, the profile and the account',
  usercache: 'What the phone pushes, and the documents it pulls',
  diary: 'What the phone reads of its own trips and data',
  metrics: 'Dashboard metrics: the user’s own, and aggregates over the program',
  customlabel: 'The user’s own labels',
  export: 'Downloads of the user’s own data',
  programs: 'Programs’ configurations and join pages',
  monitoring: 'Liveness, readiness, Prometheus and this document',
} as const;
export type PhoneTag = keyof typeof PHONE_TAGS;

/** The refusals a route may answer, each with the error body of shared/http/error-handler.ts. */
export type RefusalStatus = 400 | 401 | 403 | 404 | 408 | 409 | 410 | 413 | 415 | 429 | 503;

/** An answer that is not a refusal: what it means, what it carries (by media type) and its notable headers. */
export interface Answer {
  description: string;
  content?: Readonly<Record<string, z.ZodType>>;
  headers?: z.ZodObject;
}

/**
 * One endpoint of the phone API as /openapi.json documents it. The route itself is registered in routes/*.ts; the
 * declaration says what it takes and answers, and openapi.test.ts holds the two to the same method and path.
 */
export interface PhoneRoute {
  method: 'get' | 'post';
  /** Koa style, exactly as the router registers it (`/timeline/getTrips/:day`). */
  path: string;
  tag: PhoneTag;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A body the route accepts: shown in the document, and run through the route's own parser by a test. */
  example?: unknown;
  /**
   * The function that checks the body at run time. The phone API's bodies are checked by hand-written parsers whose
   * messages and `field` details the phone and e-mission's clients see; the schema describes what they accept.
   */
  validatedBy?: string;
  /** The answers that are not refusals, by status (200 at least). */
  answers: Readonly<Record<number, Answer>>;
  /** The refusals the route can answer and why; 500 (a bug) is added to every route. */
  refusals: Readonly<Partial<Record<RefusalStatus, string>>>;
}

/** A route as its group's file declares it: the group gives the tag. */
export type GroupRoute = Omit<PhoneRoute, 'tag'>;

/**
 * The routes of one part of the phone API, each shown under that part's tag. A file declares one part, so the tag
 * is said once, where the routes are gathered, rather than in each route.
 */
export function routeGroup(tag: PhoneTag, routes: readonly GroupRoute[]): readonly PhoneRoute[] {
  return routes.map((route) => ({ ...route, tag }));
}

/**
 * What any call with a JSON body can be refused for before its route runs (middleware/body-limits.ts,
 * middleware/json-body.ts), and the outage any call that reads or writes Cassandra or Kafka can meet.
 */
export const BODY_REFUSALS = {
  400: 'The body is not a JSON object, nests too deep, or a field is malformed: `field` names it',
  408: 'The body arrived too slowly, or stopped arriving; the connection is closed',
  413: 'The body is larger than this route takes',
  415: 'The body is not declared `application/json`, or is compressed',
  503: 'The gateway holds too many request bodies, or Cassandra or Kafka did not answer: retry after `Retry-After`',
} as const satisfies Partial<Record<RefusalStatus, string>>;

/** How the token in the body's `user` is refused (auth/resolve-token.ts, auth/admit-caller.ts, routes/identify-user.ts). */
export const TOKEN_REFUSALS = {
  401: 'No `user` token in the body',
  403: 'The token is not accepted (by the deployment’s auth or its program’s rules, or revoked) or names no registered user: the app registers again',
} as const satisfies Partial<Record<RefusalStatus, string>>;

/** A call that writes, from a participant of a closed program (routes/identify-user.ts identifyWriter). */
export const CLOSED_PROGRAM_REFUSAL = {
  410: 'The participant’s program is closed: what it holds is kept, nothing new is taken (`program` names it)',
} as const satisfies Partial<Record<RefusalStatus, string>>;

/** The refusals of a call that identifies its user by token: the body's and the token's. */
export const USER_CALL_REFUSALS = { ...BODY_REFUSALS, ...TOKEN_REFUSALS };

/** Same for a call that writes. */
export const WRITER_CALL_REFUSALS = { ...USER_CALL_REFUSALS, ...CLOSED_PROGRAM_REFUSAL };

/** Koa's `:name` path parameters in OpenAPI's `{name}` form. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:(\w+)/g, '{$1}');
}
