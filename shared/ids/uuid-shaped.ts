/**
 * An account imported from an e-mission dump without its tokens (`itinera import` without `--uuids`) answers to its
 * uuid as a token. A uuid-shaped token is therefore reserved: registering one would let a stranger who learns such a
 * uuid open that account.
 */
const UUID_SHAPED = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export function isUuidShaped(token: string): boolean {
  return UUID_SHAPED.test(token);
}
