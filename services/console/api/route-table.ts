import type { Context } from 'koa';
import type { z } from 'zod';
import type { ProgramScope } from '../scope/program-scope.js';

/**
 * One console endpoint: its method and path, the schemas of what it accepts and answers, who may call it, and the
 * handler. The Koa router (router.ts) and /admin/openapi.json (openapi.ts) are both built from these, so what is
 * documented is what is validated.
 */
export interface ConsoleRoute {
  method: 'get' | 'post';
  /** Koa style (`/admin/api/users/:userId/days/:date`). */
  path: string;
  summary: string;
  /** Operators only (replay, reset, tokens, revealing a token); the rest is open to readers too. */
  operator?: boolean;
  /**
   * The handler limits what it reads and does to the caller's programs, so a program's admin may call it. Without
   * it the route is for deployment-wide readers and operators only and a program's admin is refused (403): a route added
   * without thinking of programs shows them nothing.
   */
  programScoped?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  handle(input: {
    params: unknown;
    query: unknown;
    body: unknown;
    scope: ProgramScope;
    ctx: Context;
  }): Promise<unknown>;
}

/**
 * A route whose handler sees its inputs already parsed by its own schemas, and the caller's programs (`scope`;
 * undefined: the whole deployment), which every program-scoped handler limits itself to.
 */
export function route<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: {
  method: 'get' | 'post';
  path: string;
  summary: string;
  operator?: boolean;
  programScoped?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  response: z.ZodType;
  handle(input: {
    params: P extends z.ZodObject ? z.infer<P> : undefined;
    query: Q extends z.ZodObject ? z.infer<Q> : undefined;
    body: B extends z.ZodType ? z.infer<B> : undefined;
    scope: ProgramScope;
    ctx: Context;
  }): Promise<unknown>;
}): ConsoleRoute {
  return spec as unknown as ConsoleRoute;
}
