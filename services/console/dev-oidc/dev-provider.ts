/**
 * A local OpenID Connect provider for development and tests ONLY: whoever opens the console logs in as any
 * e-mail they type, with any password. It exists so the console's real login flow (openid-client against an
 * OIDC provider) runs on a laptop and in tests without Keycloak or a cloud tenant.
 *
 * DEVELOPMENT ONLY, NEVER EXPOSE IT: no passwords are checked, its signing keys are oidc-provider's published
 * development keys, and everything it knows (sessions, grants, codes) lives in memory and is gone on restart.
 *
 * Who you are is what you type in its login form (oidc-provider's built-in "devInteractions" pages):
 *  - `email` is the login name, or `<login>@itinera.local` when it has no `@` (`operator` → operator@itinera.local);
 *  - `groups` is `['itinera-operators']` when the login name starts with `operator` (case-insensitive), else
 *    `['itinera-readers']`. The default console.conf leaves the group lists empty and allows
 *    reader@itinera.local and operator@itinera.local by e-mail; list these groups in `reader_groups` /
 *    `operator_groups` to try group-based roles.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Account } from 'oidc-provider';

export interface DevOidcClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface DevOidcProvider {
  /** `http://<host>:<port>`, the port being the one actually bound (port 0 picks a free one). */
  issuer: string;
  close(): Promise<void>;
}

export const DEV_OPERATOR_GROUP = 'itinera-operators';
export const DEV_READER_GROUP = 'itinera-readers';

/** The claims the development provider vouches for, for whatever login name was typed. */
export function devAccountClaims(loginName: string): Record<string, unknown> {
  return {
    sub: loginName,
    email: (loginName.includes('@') ? loginName : `${loginName}@itinera.local`).toLowerCase(),
    email_verified: true,
    groups: [loginName.toLowerCase().startsWith('operator') ? DEV_OPERATOR_GROUP : DEV_READER_GROUP],
  };
}

export async function startDevOidcProvider({
  port,
  host = '127.0.0.1',
  client,
}: {
  port: number;
  host?: string;
  client: DevOidcClient;
}): Promise<DevOidcProvider> {
  process.stderr.write(
    `WARNING: starting the DEVELOPMENT OIDC provider: it logs anyone in as any e-mail without a password and keeps ` +
      `its state in memory. Never expose it; set console.oidc.dev_provider=false and a real issuer in production.\n`,
  );
  // The issuer must name the bound port, which is only known after listening (port 0 in tests): listen first,
  // then build the provider and hand it the requests.
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host.replace(/^\[(.*)\]$/, '$1'), () => {
      server.off('error', reject);
      resolve();
    });
  });
  const boundPort = (server.address() as AddressInfo).port;
  const issuer = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${boundPort}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: client.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // `groups` rides on the standard `profile` scope, so a client asking for `openid email profile` (what the
    // console asks of any provider) gets it without a custom scope real providers would reject.
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['groups'] },
    // Put the scopes' claims in the ID token too (by default only userinfo has them), as Keycloak and Entra do:
    // the console decides roles from the ID token.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // Seconds. Stated, so oidc-provider does not print a notice per default it falls back on; a provider session
    // as long as the console's, so a developer logs in once a working day.
    ttl: {
      AuthorizationCode: 60,
      AccessToken: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: 8 * 3600,
    },
    features: { devInteractions: { enabled: true } },
    // Random per start: the provider's own cookies need not survive a restart, its in-memory sessions do not.
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: (_ctx, id): Account => ({ accountId: id, claims: () => devAccountClaims(id) }),
  });
  server.on('request', provider.callback());

  return { issuer, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    // Browsers and fetch keep connections alive; without this close() would wait for them to time out.
    server.closeAllConnections();
  });
}
