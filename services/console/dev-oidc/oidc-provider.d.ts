/**
 * The slice of `oidc-provider` (which ships no types, and whose DefinitelyTyped package stops at v8) that the
 * development provider uses. Only what dev-provider.ts touches is declared; extend it when you use more.
 */
declare module 'oidc-provider' {
  import type Koa from 'koa';

  export interface Account {
    accountId: string;
    /** The claims released for this account; oidc-provider filters them by the granted scopes. */
    claims(use: 'id_token' | 'userinfo', scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: string;
    [key: string]: unknown;
  }

  export interface Configuration {
    clients?: ClientMetadata[];
    claims?: Record<string, string[] | null>;
    conformIdTokenClaims?: boolean;
    cookies?: { keys?: string[]; [key: string]: unknown };
    features?: Record<string, { enabled: boolean; [key: string]: unknown }>;
    findAccount?: (ctx: Koa.Context, id: string) => Promise<Account | undefined> | Account | undefined;
    pkce?: { required?: (ctx: Koa.Context, client: unknown) => boolean; methods?: string[] };
    [key: string]: unknown;
  }

  export class Provider extends Koa {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
  }

  export default Provider;
}
