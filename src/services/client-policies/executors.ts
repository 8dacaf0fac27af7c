import type { ClientRepresentation } from '../../representations/client';
import type { ProviderConfiguration } from '../../representations/client-policy';
import { FAPI_EXECUTORS } from './executors-fapi';
import { BINDING_EXECUTORS } from './executors-binding';
import { CIBA_EXECUTORS } from './executors-ciba';
import { REQUEST_EXECUTORS } from './executors-request';
import { ClientPolicyViolation, type PolicyContext } from './types';

/**
 * Client-policy executors (ADR 0032), each acting as its Keycloak namesake on the events it handles
 * and doing nothing on the others. `auto-configure` changes the proposed representation before it
 * is validated. Only the executors here act; server info lists exactly these (and `secret-rotation`,
 * which acts in clients/client-secret.ts).
 */
interface Executor {
  run(conf: ProviderConfiguration, c: PolicyContext): void | Promise<void>;
}

const isTrue = (v: unknown) => v === true || v === 'true';
const PKCE = 'pkce.code.challenge.method';
const CHALLENGE = /^[0-9a-zA-Z\-._~]{43,128}$/;
const VERIFIER = /^[0-9a-zA-Z\-._~]{43,128}$/;
const refuse = (error: string, detail: string) => new ClientPolicyViolation(error, detail);
const crud = (c: PolicyContext) => c.event === 'REGISTER' || c.event === 'UPDATE';
const attrsOf = (rep: ClientRepresentation): Record<string, string> => {
  rep.attributes = { ...((rep.attributes as Record<string, string> | undefined) ?? {}) };
  return rep.attributes as Record<string, string>;
};
const clientAttr = (c: PolicyContext, key: string): string | undefined =>
  (c.client?.settings?.attributes as Record<string, string> | undefined)?.[key];

/** pkce-enforcer: S256 on the client (auto-configured or required), then PKCE on authorization and code exchange. */
const pkceEnforcer: Executor = {
  run(conf, c) {
    if (crud(c) && c.rep) {
      if (isTrue(conf['auto-configure'])) attrsOf(c.rep)[PKCE] = 'S256';
      const method = (c.rep.attributes as Record<string, string> | undefined)?.[PKCE];
      if (method !== 'S256') throw refuse('invalid_client_metadata', 'Invalid client metadata: code_challenge_method');
      return;
    }
    if (c.event === 'AUTHORIZATION_REQUEST') {
      const method = c.params?.code_challenge_method;
      const challenge = c.params?.code_challenge;
      const configured = clientAttr(c, PKCE);
      if (!method) throw refuse('invalid_request', 'Missing parameter: code_challenge_method');
      if (method !== 'S256') throw refuse('invalid_request', 'Invalid parameter: invalid code_challenge_method');
      if (configured && method !== configured)
        throw refuse('invalid_request', 'Invalid parameter: code challenge method is not configured one');
      if (!challenge) throw refuse('invalid_request', 'Missing parameter: code_challenge');
      if (!CHALLENGE.test(challenge)) throw refuse('invalid_request', 'Invalid parameter: code_challenge');
      return;
    }
    if (c.event === 'TOKEN_REQUEST') {
      // The verifier is checked against the code's challenge by the code exchange itself.
      const verifier = c.params?.code_verifier;
      if (!verifier) throw refuse('code_verifier_missing', 'PKCE code verifier not specified');
      if (!VERIFIER.test(verifier)) throw refuse('invalid_code_verifier', 'PKCE invalid code verifier');
    }
  },
};

/** secure-client-authenticator: the client authenticator is one of the allowed ones (default set when absent). */
const secureClientAuthenticator: Executor = {
  run(conf, c) {
    const allowed = Array.isArray(conf['allowed-client-authenticators']) ? conf['allowed-client-authenticators'].map(String) : [];
    if (crud(c) && c.rep) {
      const def = conf['default-client-authenticator'];
      if (typeof def === 'string' && c.rep.clientAuthenticatorType == null) c.rep.clientAuthenticatorType = def;
      if (c.rep.publicClient === true) return;
      if (!allowed.includes(String(c.rep.clientAuthenticatorType))) {
        throw refuse('invalid_client_metadata', 'Invalid client metadata: token_endpoint_auth_method');
      }
      return;
    }
    if ((c.event === 'TOKEN_REQUEST' || c.event === 'TOKEN_REFRESH') && c.client && !c.client.publicClient) {
      const type = String(c.client.settings?.clientAuthenticatorType ?? 'client-secret');
      if (!allowed.includes(type)) throw refuse('invalid_request', 'Configured client authentication method not allowed for client');
    }
  },
};

/** full-scope-disabled: a written client may not enable fullScopeAllowed (auto-configure turns it off). */
const fullScopeDisabled: Executor = {
  run(conf, c) {
    if (!crud(c) || !c.rep) return;
    if (isTrue(conf['auto-configure'])) c.rep.fullScopeAllowed = false;
    if (c.rep.fullScopeAllowed === true) throw refuse('invalid_registration', 'Not permitted to enable fullScopeAllowed');
  },
};

/** consent-required: a written client must require consent (auto-configure turns it on). */
const consentRequired: Executor = {
  run(conf, c) {
    if (!crud(c) || !c.rep) return;
    if (isTrue(conf['auto-configure'])) c.rep.consentRequired = true;
    // An update that leaves consentRequired out keeps the stored value, which may already be on.
    if (c.event === 'UPDATE' && c.rep.consentRequired == null && c.client?.settings?.consentRequired === true) return;
    if (c.rep.consentRequired !== true) throw refuse('invalid_registration', 'Client is required to enable consentRequired');
  },
};

/** confidential-client: public clients are refused on authorization and token requests. */
const confidentialClient: Executor = {
  run(_conf, c) {
    const judged = [
      'AUTHORIZATION_REQUEST',
      'TOKEN_REQUEST',
      'SERVICE_ACCOUNT_TOKEN_REQUEST',
      'BACKCHANNEL_AUTHENTICATION_REQUEST',
      'BACKCHANNEL_TOKEN_REQUEST',
    ];
    if (!judged.includes(c.event)) return;
    if (!c.client || c.client.publicClient || c.client.bearerOnly) throw refuse('invalid_client', 'invalid client access type');
  },
};

/** reject-implicit-grant: no implicit flow on the client (auto-configure turns it off), no implicit/hybrid response type. */
const rejectImplicitGrant: Executor = {
  run(conf, c) {
    if (crud(c) && c.rep) {
      if (isTrue(conf['auto-configure'])) c.rep.implicitFlowEnabled = false;
      if (c.rep.implicitFlowEnabled === true) throw refuse('invalid_client_metadata', 'Invalid client metadata: implicit flow enabled');
      return;
    }
    if (c.event === 'AUTHORIZATION_REQUEST') {
      const types = String(c.params?.response_type ?? '').split(' ');
      if (types.includes('token') || types.includes('id_token')) throw refuse('invalid_request', 'Implicit/Hybrid flow is prohibited.');
    }
  },
};

/** reject-ropc-grant: no direct access grants on the client (auto-configure turns them off), password grant refused. */
const rejectRopcGrant: Executor = {
  run(conf, c) {
    if (crud(c) && c.rep) {
      if (isTrue(conf['auto-configure'])) c.rep.directAccessGrantsEnabled = false;
      if (c.rep.directAccessGrantsEnabled === true) {
        throw refuse('invalid_client_metadata', 'Invalid client metadata: resource owner password credentials grant enabled');
      }
      return;
    }
    if (c.event === 'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST') {
      throw refuse('invalid_grant', 'resource owner password credentials grant is prohibited.');
    }
  },
};

/**
 * secure-response-type: the ID token as detached signature on the client (auto-configure sets it);
 * an authorization request must be hybrid (`code id_token`, with `token` only when allowed) or
 * `code` with `response_mode=jwt` exactly (Keycloak's SecureResponseTypeExecutor; `query.jwt` does not pass).
 */
const secureResponseType: Executor = {
  run(conf, c) {
    const DETACHED = 'id.token.as.detached.signature';
    if (crud(c) && c.rep) {
      if (isTrue(conf['auto-configure'])) attrsOf(c.rep)[DETACHED] = 'true';
      if (String((c.rep.attributes as Record<string, string> | undefined)?.[DETACHED]) !== 'true') {
        throw refuse('invalid_client_metadata', 'Invalid client metadata: ID Token as detached signature in disabled');
      }
      return;
    }
    if (c.event !== 'AUTHORIZATION_REQUEST') return;
    const types = String(c.params?.response_type ?? '').split(' ');
    if (types.includes('code') && types.includes('id_token')) {
      if (!types.includes('token') || isTrue(conf['allow-token-response-type'])) return;
    }
    if (types.length === 1 && types[0] === 'code' && String(c.params?.response_mode ?? '').toLowerCase() === 'jwt') return;
    throw refuse('invalid_request', 'invalid response_type');
  },
};

const INVALID_URI = 'Invalid Redirect Uri: invalid uri';
const INVALID_LOOPBACK = 'Invalid Redirect Uri: invalid loopback address';
const INVALID_PRIVATE_SCHEME = 'Invalid Redirect Uri: invalid private use scheme';

/** One redirect URI of a written client against secure-redirect-uris-enforcer's configuration: the refusal, if any. */
function redirectUriProblem(raw: string, conf: ProviderConfiguration): string | undefined {
  const on = (key: string) => isTrue(conf[key]);
  let uri: URL;
  try {
    uri = new URL(raw);
  } catch {
    return INVALID_URI;
  }
  const scheme = uri.protocol.slice(0, -1);
  const http = scheme === 'http';
  const https = scheme === 'https';
  const host = uri.hostname.toLowerCase();
  const wildcard = raw.includes('*');
  const fragment = raw.includes('#');
  // With allow-wildcard-context-path, a wildcard starting the path must be the only one (Keycloak checks no other place).
  const badWildcard = () =>
    on('allow-wildcard-context-path')
      ? wildcard && (uri.pathname.startsWith('/*') || uri.pathname.startsWith('*')) && raw.split('*').length !== 2
      : wildcard;
  const strict = on('oauth-2-1-compliant');
  const ipv4Loopback = (http || https) && (host === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host));
  const ipv6Loopback = (http || https) && host === '[::1]';
  if (ipv4Loopback || ipv6Loopback) {
    if (!on(ipv4Loopback ? 'allow-ipv4-loopback-address' : 'allow-ipv6-loopback-address')) return INVALID_LOOPBACK;
    if ((http && !on('allow-http-scheme')) || badWildcard()) return INVALID_LOOPBACK;
    if (strict && (fragment || wildcard || host === 'localhost' || uri.port !== '')) return INVALID_LOOPBACK;
    return undefined;
  }
  if (!http && !https) {
    if (!on('allow-private-use-uri-scheme') || badWildcard()) return INVALID_PRIVATE_SCHEME;
    if (strict && (fragment || wildcard || !scheme.includes('.'))) return INVALID_PRIVATE_SCHEME;
    return undefined;
  }
  if ((http && !on('allow-http-scheme')) || badWildcard()) return INVALID_URI;
  const domains = Array.isArray(conf['allow-permitted-domains']) ? conf['allow-permitted-domains'].map(String) : [];
  if (domains.length && !domains.some((d) => safeFullMatch(d, host))) return INVALID_URI;
  if (strict && (!https || fragment || wildcard)) return INVALID_URI;
  return undefined;
}

/** Whether `pattern` (a regular expression, as Java's String#matches) matches the whole of `value`; an invalid pattern matches nothing. */
function safeFullMatch(pattern: string, value: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(value);
  } catch {
    return false;
  }
}

/**
 * secure-redirect-uris-enforcer: the redirect URIs (and post-logout redirect URIs) of a written
 * client with a browser flow must be loopback addresses, private-use schemes or http(s) URIs as the
 * configuration allows (`allow-*`, `oauth-2-1-compliant`, `allow-permitted-domains`); relative URIs
 * are resolved against the root URL; `allow-open-redirect` turns the checks off.
 */
const secureRedirectUris: Executor = {
  run(conf, c) {
    if (!crud(c) || !c.rep) return;
    const rep = c.rep;
    if (rep.standardFlowEnabled === false && rep.implicitFlowEnabled !== true) return;
    const uris = Array.isArray(rep.redirectUris) ? rep.redirectUris.map(String) : [];
    if (!uris.length) throw refuse('invalid_request', INVALID_URI);
    if (isTrue(conf['allow-open-redirect'])) return;
    const root = typeof rep.rootUrl === 'string' ? rep.rootUrl : '';
    const resolve = (u: string) => (u.startsWith('/') && root ? `${root.replace(/\/$/, '')}${u}` : u);
    const postLogout = String((rep.attributes as Record<string, string> | undefined)?.['post.logout.redirect.uris'] ?? '')
      .split('##')
      .filter((u) => u && u !== '+' && u !== '-');
    for (const u of [...uris, ...postLogout]) {
      const problem = redirectUriProblem(resolve(u), conf);
      if (problem) throw refuse('invalid_request', problem);
    }
  },
};

/** registration-access-token-rotation-disabled: an update through the registration service keeps its registration access token. */
const registrationTokenRotationDisabled: Executor = {
  run(_conf, c) {
    if (c.event === 'UPDATE' && c.registration) c.registration.rotateRegistrationAccessToken = false;
  },
};

/**
 * secure-logout: a written client may not use front-channel logout (the flag or a front-channel
 * logout URL) and a logout may not come as a GET, unless `allow-front-channel-logout`.
 */
const secureLogout: Executor = {
  run(conf, c) {
    if (isTrue(conf['allow-front-channel-logout'])) return;
    const refusal = () => refuse('invalid_registration', 'Front-channel logout is not allowed for this client');
    if (crud(c) && c.rep) {
      const url = (c.rep.attributes as Record<string, string> | undefined)?.['frontchannel.logout.url'];
      if (c.rep.frontchannelLogout === true || (typeof url === 'string' && url.trim() !== '')) throw refusal();
      return;
    }
    if (c.event === 'LOGOUT_REQUEST' && c.params?.http_method === 'GET') throw refusal();
  },
};

/** reject-request: every request the policy applies to is refused. */
const rejectRequest: Executor = {
  run() {
    throw refuse('invalid_request', 'request not allowed');
  },
};

export const EXECUTORS: Record<string, Executor> = {
  'reject-request': rejectRequest,
  'secure-logout': secureLogout,
  ...FAPI_EXECUTORS,
  'confidential-client': confidentialClient,
  'consent-required': consentRequired,
  'full-scope-disabled': fullScopeDisabled,
  'pkce-enforcer': pkceEnforcer,
  'registration-access-token-rotation-disabled': registrationTokenRotationDisabled,
  'reject-implicit-grant': rejectImplicitGrant,
  'reject-ropc-grant': rejectRopcGrant,
  'secure-client-authenticator': secureClientAuthenticator,
  'secure-redirect-uris-enforcer': secureRedirectUris,
  'secure-response-type': secureResponseType,
  ...BINDING_EXECUTORS,
  ...CIBA_EXECUTORS,
  ...REQUEST_EXECUTORS,
};
