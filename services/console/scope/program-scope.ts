/**
 * The programs a console user works in. Undefined is the whole deployment (its readers and operators); a list is
 * a program's admin's programs. A participant belongs to the program their token names (`nrelop_<program>_…`); a
 * participant whose token names none (the implicit program) is seen by deployment-wide users only.
 */
export type ProgramScope = readonly string[] | undefined;

/** Whether a user of `scope` sees what belongs to `program` (null or undefined: the implicit program). */
export function inScope(scope: ProgramScope, program: string | null | undefined): boolean {
  return scope === undefined || (program !== null && program !== undefined && scope.includes(program));
}

/** The scope as one string, for caches and job slots: `*` for the whole deployment. */
export function scopeKey(scope: ProgramScope): string {
  return scope === undefined ? '*' : [...scope].sort().join(',');
}

/** Whether a user of scope `outer` covers all that `inner` covers (a job started in `inner`, say). */
export function scopeCovers(outer: ProgramScope, inner: ProgramScope): boolean {
  if (outer === undefined) return true;
  return inner !== undefined && inner.every((program) => outer.includes(program));
}

/** How an audit line names the scope an action ran in. */
export function describeScope(scope: ProgramScope): string {
  return scope === undefined ? 'all' : scope.join(',');
}
