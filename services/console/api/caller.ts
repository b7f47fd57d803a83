import type { ProgramScope } from '../scope/program-scope.js';

/** What the gate leaves in `ctx.state.operator`, as the handlers read it. */
interface CallerContext {
  state: { operator?: { email: string; role: string; programs?: ProgramScope } };
}

/** Who calls, for audit lines and the programs' history. */
export const who = (ctx: CallerContext): string => ctx.state.operator?.email ?? 'unknown';

export const isOperator = (ctx: CallerContext): boolean => ctx.state.operator?.role === 'operator';

/** The programs the caller works in (a program's admin); undefined: the whole deployment. */
export const scopeOf = (ctx: CallerContext): ProgramScope => ctx.state.operator?.programs;
