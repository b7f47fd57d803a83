import * as client from 'openid-client';
import type { Config } from '../../../shared/config/index.js';
import { ConfigError, DependencyUnavailableError } from '../../../shared/errors/index.js';
import type { PendingLogin } from './session.js';
import { once } from '../../../shared/runtime/once.js';

/** What the console asks every provider for; the dev provider puts `groups` under `profile`. */
const SCOPE = 'openid email profile';
/** Seconds for each request to the provider: a login waiting longer than this is better told to retry. */
const PROVIDER_TIMEOUT_S = 10;

export interface ConsoleOidcClient {
  /** The provider's authorization URL for a new login, and the checks to keep until the callback. */
  startLogin(next: string, options: { forceLogin: boolean }): Promise<{ url: URL; pending: PendingLogin }>;
  /** Checks the callback (state, PKCE, nonce, ID token) and answers the ID token's claims. */
  finishLogin(callbackQuery: string, pending: PendingLogin): Promise<Record<string, unknown>>;
}

/**
 * The console as an OIDC relying party (openid-client): authorization code flow with PKCE, state and nonce,
 * client_secret_basic at the token endpoint. Discovery happens on the first login, not at start-up, and a failed
 * one is retried by the next login: in development the provider may well start after the console.
 */
export function createOidcClient(config: Config['console']): ConsoleOidcClient {
  const { issuer, clientId, clientSecret } = config.oidc;
  const redirectUri = `${config.publicUrl}/admin/callback`;
  const insecure = allowsPlainHttp(issuer);
  const configuration = once(() =>
    client
      .discovery(new URL(issuer), clientId, { redirect_uris: [redirectUri] }, client.ClientSecretBasic(clientSecret), {
        timeout: PROVIDER_TIMEOUT_S,
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      })
      .catch((cause: unknown) => {
        throw new DependencyUnavailableError(`the sign-in provider ${issuer} is not reachable`, { cause });
      }),
  );

  return {
    async startLogin(next, { forceLogin }) {
      const oidc = await configuration();
      const pending: PendingLogin = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
        next,
      };
      const url = client.buildAuthorizationUrl(oidc, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        ...(forceLogin ? { prompt: 'login' } : {}),
      });
      return { url, pending };
    },

    async finishLogin(callbackQuery, pending) {
      const oidc = await configuration();
      // The URL the provider redirected to, rebuilt from the configured public URL rather than the request's Host:
      // behind a proxy the two differ, and openid-client sends it as the token request's redirect_uri.
      const callbackUrl = new URL(callbackQuery === '' ? redirectUri : `${redirectUri}?${callbackQuery}`);
      const tokens = await client.authorizationCodeGrant(oidc, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims: Record<string, unknown> = { ...tokens.claims() };
      // Some providers keep the e-mail out of the ID token; their userinfo endpoint has it.
      if (typeof claims['email'] !== 'string') {
        return { ...claims, ...(await client.fetchUserInfo(oidc, tokens.access_token, String(claims['sub']))) };
      }
      return claims;
    },
  };
}

/** Whether a URL names this machine (localhost, 127.x.x.x, [::1]): where development-only settings may run. */
export function isLoopbackUrl(url: string): boolean {
  return /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(new URL(url).hostname);
}

/**
 * openid-client refuses plain http, rightly: the ID token would travel unprotected. A provider on this machine
 * (the dev provider) is the one exception; an http issuer anywhere else is a configuration mistake, said at start.
 */
function allowsPlainHttp(issuer: string): boolean {
  if (!URL.canParse(issuer)) throw new ConfigError(`console.oidc.issuer is not a URL: ${issuer}`);
  const url = new URL(issuer);
  if (url.protocol === 'https:') return false;
  if (url.protocol === 'http:' && isLoopbackUrl(issuer)) return true;
  throw new ConfigError(`console.oidc.issuer must be https:// (plain http only on a loopback address): ${issuer}`);
}
