import type { z } from 'zod';
import { ValidationError } from '../../../shared/errors/index.js';
import type { CreatedTokens, TokenRequest } from '../api/schemas.js';

type Request = z.infer<typeof TokenRequest>;
type Created = z.infer<typeof CreatedTokens>['tokens'];

/**
 * What the deployment's programs would make of a token at login (the gateway's rule): undefined when the deployment
 * serves no program (its own auth decides, any program name goes), a refusal with its reason, or membership.
 */
export type TokenAdmission =
  undefined | { kind: 'refused'; reason: string } | { kind: 'member'; suspended: boolean; closed: string | undefined };

export interface TokenIssuerDeps {
  /** How a phone logging in with a token of this program, subgroup and kind (tester or not) would be answered. */
  admission(request: Pick<Request, 'program' | 'subgroup' | 'tester'>): Promise<TokenAdmission>;
  /** New tokens with their QR codes; nothing stored. */
  generate(request: Request): Promise<Created>;
  /** Records the tokens as issued, before anyone sees them (`token_list` mode accepts them then). */
  record(tokens: readonly string[], program: string, subgroup: string, by: string): Promise<void>;
}

/** Why tokens of the request would not let a phone in (or in for nothing), or undefined. */
export function issueRefusal({ program, subgroup }: Request, admission: TokenAdmission): string | undefined {
  if (admission === undefined) return undefined;
  if (admission.kind === 'refused')
    return `tokens of program "${program}", subgroup "${subgroup}": ${admission.reason}`;
  if (admission.closed !== undefined) return `program "${program}" is closed: ${admission.closed}`;
  if (admission.suspended)
    return `subgroup "${subgroup}" of program "${program}" is suspended: its phones' data would be kept nowhere`;
  return undefined;
}

/**
 * Tokens issued on the Tokens page. A token a phone could not use is refused (400) before any is made, by the rule
 * the gateway applies at login: the program must exist when the deployment serves programs, and the subgroup be one
 * of its `opcode.subgroups` (`default` without a list); a closed program or a suspended subgroup is refused too.
 */
export function createTokenIssuer(deps: TokenIssuerDeps) {
  return async (request: Request, by: string): Promise<{ tokens: Created }> => {
    const refusal = issueRefusal(request, await deps.admission(request));
    if (refusal !== undefined)
      throw new ValidationError(refusal, { details: { program: request.program, subgroup: request.subgroup } });
    const tokens = await deps.generate(request);
    await deps.record(
      tokens.map((t) => t.token),
      request.program,
      request.subgroup,
      by,
    );
    return { tokens };
  };
}
