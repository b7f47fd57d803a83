import type { ParameterizedContext } from 'koa';
import { isLoopbackHost, type Config } from '../../../shared/config/index.js';
import { ForbiddenError, ProgramClosedError } from '../../../shared/errors/index.js';
import { admitCaller } from '../auth/admit-caller.js';
import type { TokenChecks } from '../auth/resolve-token.js';
import type { ProgramGate, ProgramMember } from '../stores.js';
import type { GatewayState } from '../gateway-state.js';
import type { User, UserStore } from '../../../shared/tables/users.js';

export interface IdentifyDeps {
  auth: Config['webserver'];
  users: UserStore;
  /** The console's issued tokens and refusal record; without it only the configuration decides, nothing is noted. */
  tokens?: TokenChecks;
  /** The deployment's programs; without them every token goes by `auth` (one implicit program). */
  programs?: ProgramGate;
}

/**
 * The calling user, from the body's token. Every call but /profile/create needs a registered user: an unknown
 * token answers 403, which is how the phone app learns it must register again.
 */
export async function identifyUser(ctx: ParameterizedContext<GatewayState>, deps: IdentifyDeps): Promise<User> {
  return (await identifyMember(ctx, deps)).user;
}

/** identifyUser, with the program the user's token belongs to (none for the implicit program). */
export async function identifyMember(
  ctx: ParameterizedContext<GatewayState>,
  deps: IdentifyDeps,
): Promise<{ user: User; member?: ProgramMember | undefined }> {
  const caller = await admitCaller(ctx.request.body, deps);
  const user = await deps.users.findByEmail(caller.userEmail);
  if (!user) throw new ForbiddenError('token is valid, but no account found for user');
  ctx.state.userUuid = user.uuid;
  return { user, member: caller.member };
}

/**
 * identifyMember for a call that writes: a closed program keeps what it holds and takes nothing new (puts, labels,
 * profile changes); the phone keeps its data and is told why. Reads, exports and deletion stay open to the end.
 */
export async function identifyWriter(
  ctx: ParameterizedContext<GatewayState>,
  deps: IdentifyDeps,
): Promise<{ user: User; member?: ProgramMember | undefined }> {
  const identified = await identifyMember(ctx, deps);
  const { member } = identified;
  if (member?.closed !== undefined)
    throw new ProgramClosedError(member.closed, { details: { program: member.program } });
  return identified;
}

/**
 * Deletion and export are refused outright when tokens are e-mails (auth `skip`) and the gateway listens beyond
 * loopback: there, knowing someone's e-mail would be enough to erase or download their data. Even an operator who
 * allowed `skip-auth` off loopback (ITINERA_ALLOW_INSECURE) gets only the reversible calls.
 */
export function requireRealAuth(deps: IdentifyDeps, action: string): void {
  if (deps.auth.auth === 'skip' && !isLoopbackHost(deps.auth.host))
    throw new ForbiddenError(
      `${action} needs real authentication: this server takes tokens as e-mails (auth skip) and is reachable from the network`,
    );
}
