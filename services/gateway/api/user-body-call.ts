import { type GroupRoute, USER_CALL_REFUSALS } from './phone-route.js';
import { UserBody } from './phone-schemas.js';

/** What a call whose body only says who calls declares of its own; the rest is the same for all of them. */
export type UserBodyCallDeclaration = Omit<GroupRoute, 'method' | 'body' | 'example' | 'refusals'> & {
  /** @defaultValue USER_CALL_REFUSALS: a call that refuses more, or says why more precisely, spells them out. */
  refusals?: GroupRoute['refusals'];
};

/**
 * A POST whose body is `{user}` alone (UserBody): the phone's reads of what belongs to its user, registration and
 * deletion. Such a call takes the same body, shows the same example and meets the refusals of every user call.
 */
export function userBodyCall(declaration: UserBodyCallDeclaration): GroupRoute {
  const { refusals = USER_CALL_REFUSALS, ...own } = declaration;
  return { method: 'post', body: UserBody, example: { user: 'alice@example.org' }, ...own, refusals };
}
