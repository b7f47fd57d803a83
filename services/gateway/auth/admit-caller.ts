import type { Config } from '../../../shared/config/index.js';
import { ForbiddenError } from '../../../shared/errors/index.js';
import type { ProgramGate, ProgramMember } from '../stores.js';
import { authenticateToken, isListed, tokenFromBody, type TokenChecks } from './resolve-token.js';

/** Who calls: the token, which is the account's name, and the program it belongs to when a program claims it. */
export interface Caller {
  userEmail: string;
  member?: ProgramMember;
}

export interface CallerChecks {
  auth: Config['webserver'];
  tokens?: TokenChecks | undefined;
  /** The deployment's programs; without them every token goes by the deployment's auth mode. */
  programs?: ProgramGate | undefined;
}

/** The body's token, or undefined when it is unusable (authenticateToken then refuses it, and notes why). */
function usableToken(body: unknown): string | undefined {
  try {
    return tokenFromBody(body);
  } catch {
    return undefined;
  }
}

/**
 * The caller of a phone call. A token that a program claims (an opcode naming a program the deployment serves)
 * goes by that program's rules: its subgroups, and whether phones make their own tokens or take only those an
 * operator issued (e-mission's `dynamic` auth). Any other token goes by the deployment's auth mode, as it did
 * before programs. A token those rules admit is refused still if an operator revoked it (asked last, so a token
 * refused anyway costs no read). A refusal is noted for the console and answered 403.
 */
export async function admitCaller(body: unknown, checks: CallerChecks): Promise<Caller> {
  const caller = await admittedByRules(body, checks);
  // An outage here is a 503, which the phone retries.
  if (await checks.tokens?.isRevoked(caller.userEmail)) {
    checks.tokens?.refused(caller.userEmail, 'revoked by an operator');
    throw new ForbiddenError('invalid token: revoked by an operator');
  }
  return caller;
}

async function admittedByRules(body: unknown, checks: CallerChecks): Promise<Caller> {
  const token = usableToken(body);
  if (checks.programs && token !== undefined) {
    const admission = await checks.programs.admit(token);
    if (admission?.kind === 'refused') {
      checks.tokens?.refused(token, admission.reason);
      throw new ForbiddenError(`invalid token: ${admission.reason}`);
    }
    if (admission?.kind === 'member') {
      if (admission.issuedOnly && !isListed(token, checks.auth.tokenList) && !(await checks.tokens?.isIssued(token))) {
        const reason = `program ${admission.program} takes only the tokens its operators issued`;
        checks.tokens?.refused(token, reason);
        throw new ForbiddenError(`invalid token: ${reason}`);
      }
      return { userEmail: token, member: admission };
    }
  }
  return { userEmail: await authenticateToken(body, checks.auth, checks.tokens) };
}
