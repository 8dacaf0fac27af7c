import { decodeProtectedHeader } from 'jose';
import { nowSeconds } from '../../core/clock';
import type { ClientRepresentation } from '../../representations/client';
import type { ProviderConfiguration } from '../../representations/client-policy';
import { isParRequestUri, peekPushedRequest, removePushedRequest } from '../login/par-store';
import { asParams, parseRequestObject, RequestProblem } from '../login/request-object';
import { ClientPolicyViolation, type PolicyContext } from './types';

/**
 * The executors of the FAPI profiles (fapi-1-*, fapi-2-*; ADR 0037), each as its Keycloak 26
 * namesake on the events it handles: secure-client-uris, secure-signature-algorithm,
 * secure-signature-algorithm-signed-jwt, secure-request-object, secure-par-content, secure-session.
 */
export interface Executor {
  run(conf: ProviderConfiguration, c: PolicyContext): void | Promise<void>;
}

const isTrue = (v: unknown) => v === true || v === 'true';
const refuse = (error: string, detail: string) => new ClientPolicyViolation(error, detail);
const crud = (c: PolicyContext) => c.event === 'REGISTER' || c.event === 'UPDATE';
const attrsOf = (rep: ClientRepresentation) => (rep.attributes as Record<string, string> | undefined) ?? {};
const multi = (v: string | undefined) => (v ? v.split('##').filter((x) => x !== '') : []);

/** A list of URIs is secure when each (non-empty) is https and has no wildcard; else `Invalid <what>`. */
function confirmSecure(uris: (string | undefined)[], what: string): void {
  for (const u of uris) {
    if (typeof u !== 'string' || u === '') continue;
    if (!u.startsWith('https://') || u.includes('*')) throw refuse('invalid_client_metadata', `Invalid ${what}`);
  }
}

/** Relative URIs resolved against the root URL; `+` stands for the redirect URIs (their origins for web origins). */
function resolved(list: string[], redirects: string[], root: string | undefined, origins: boolean): string[] {
  const abs = (u: string) => (u.startsWith('/') && root ? `${root.replace(/\/$/, '')}${u}` : u);
  const out: string[] = [];
  for (const u of list) {
    if (u === '+' || u === '-') {
      if (u === '+') {
        for (const r of redirects.map(abs)) {
          if (!origins) out.push(r);
          else {
            try {
              out.push(new URL(r.replace(/\*/g, 'x')).origin);
            } catch {
              out.push(r);
            }
          }
        }
      }
      continue;
    }
    out.push(abs(u));
  }
  return out;
}

/** secure-client-uris: every URI of a written client is https without wildcards; authorization requests redirect to https (or, when allowed, http on localhost). */
const secureClientUris: Executor = {
  run(conf, c) {
    if (crud(c) && c.rep) {
      const rep = c.rep;
      const a = attrsOf(rep);
      const root = typeof rep.rootUrl === 'string' ? rep.rootUrl : undefined;
      const redirects = Array.isArray(rep.redirectUris) ? rep.redirectUris.map(String) : [];
      confirmSecure([root], 'rootUrl');
      confirmSecure([rep.adminUrl as string | undefined], 'adminUrl');
      confirmSecure([rep.baseUrl as string | undefined], 'baseUrl');
      confirmSecure([a['backchannel.logout.url']], 'logoutUrl');
      confirmSecure([a['frontchannel.logout.url']], 'frontChannelLogoutUrl');
      confirmSecure(redirects, 'redirectUris');
      if (Array.isArray(rep.webOrigins)) confirmSecure(resolved(rep.webOrigins.map(String), redirects, root, true), 'webOrigins');
      confirmSecure([a['jwks.url']], 'jwksUri');
      confirmSecure(multi(a['request.uris']), 'requestUris');
      confirmSecure(resolved(multi(a['post.logout.redirect.uris']), redirects, root, false), 'postLogoutUris');
      confirmSecure([a.logoUri], 'logoUri');
      confirmSecure([a.tosUri], 'tosUri');
      confirmSecure([a.policyUri], 'policyUri');
      // A new client without redirect URIs gets its root URL (rather than a wildcard made of it later).
      if (c.event === 'REGISTER' && root && !redirects.length) rep.redirectUris = [root];
      return;
    }
    if (c.event !== 'AUTHORIZATION_REQUEST') return;
    const uri = c.params?.redirect_uri;
    if (!uri) throw refuse('invalid_request', 'no redirect_uri specified.');
    if (uri.includes('*')) throw refuse('invalid_request', 'Invalid redirect_uri');
    if (!uri.startsWith('https://')) {
      const local = uri.startsWith('http://localhost') || uri.startsWith('http://127.0.0.1');
      if (!isTrue(conf['allow-http-on-localhost']) || !local) throw refuse('invalid_request', 'Invalid redirect_uri');
    }
  },
};

const SECURE_ALGS = new Set(['PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']);
const SIG_TARGETS = [
  'user.info.response.signature.alg',
  'request.object.signature.alg',
  'id.token.signed.response.alg',
  'token.endpoint.auth.signing.alg',
];

/** secure-signature-algorithm: a written client's signature algorithms are PS or ES ones (an unset one gets `default-algorithm`, PS256). */
const secureSignatureAlgorithm: Executor = {
  run(conf, c) {
    if (!crud(c) || !c.rep) return;
    const def =
      typeof conf['default-algorithm'] === 'string' && SECURE_ALGS.has(conf['default-algorithm']) ? conf['default-algorithm'] : 'PS256';
    // The access token's algorithm is no registration metadata: checked on admin writes only.
    const targets = c.registration ? SIG_TARGETS : [...SIG_TARGETS, 'access.token.signed.response.alg'];
    const attrs = { ...attrsOf(c.rep) };
    for (const t of targets) {
      const alg = attrs[t];
      if (alg == null) attrs[t] = def;
      else if (!SECURE_ALGS.has(alg)) throw refuse('invalid_request', 'not allowed signature algorithm.');
    }
    c.rep.attributes = attrs;
  },
};

/** secure-signature-algorithm-signed-jwt: a client assertion (required with `require-client-assertion`) is signed with a PS or ES algorithm. */
const secureSignatureAlgorithmSignedJwt: Executor = {
  run(conf, c) {
    if (c.event !== 'TOKEN_REQUEST' && c.event !== 'TOKEN_REFRESH') return;
    const assertion = c.params?.client_assertion;
    if (!isTrue(conf['require-client-assertion']) && !assertion?.trim()) return;
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(String(assertion ?? '')).alg;
    } catch {
      throw refuse('invalid_request', 'not allowed input format.');
    }
    if (!alg || !SECURE_ALGS.has(alg)) throw refuse('invalid_request', 'not allowed signature algorithm.');
  },
};

/** Authorization parameters whose query value must equal the request object's (Keycloak's KNOWN_REQ_PARAMS). */
const KNOWN_PARAMS = [
  'client_id',
  'response_type',
  'response_mode',
  'redirect_uri',
  'state',
  'scope',
  'login_hint',
  'prompt',
  'nonce',
  'max_age',
  'ui_locales',
  'claims',
  'acr_values',
  'code_challenge',
  'code_challenge_method',
  'display',
  'kc_idp_hint',
  'kc_action',
];

/**
 * secure-request-object: an authorization request carries a request object (`request`, a
 * `request_uri`, or a pushed request holding one) with `exp`, `aud` naming the realm, `nbf` (with
 * `verify-nbf`) at most `available-period` before `exp`, not issued in the future (clock skew
 * `allowed-clock-skew`, 15 s), and every query parameter repeated in it with the same value.
 */
const secureRequestObject: Executor = {
  run(conf, c) {
    if (c.event !== 'AUTHORIZATION_REQUEST') return;
    const viaPar = c.par === true;
    const fail = (error: string, detail: string) =>
      refuse(viaPar && error === 'invalid_request_object' ? 'invalid_request_uri' : error, detail);
    const params = c.rawParams ?? c.params ?? {};
    if (!params.request && !params.request_uri) throw fail('invalid_request', "Missing parameter: 'request' or 'request_uri'");
    const ro = c.requestObject;
    if (!ro || !Object.keys(ro).length) throw fail('invalid_request', "Invalid parameter: : 'request' or 'request_uri'");
    if (params.scope == null && ro.scope == null) {
      throw fail('invalid_request', "Parameter 'scope' missing in the request parameters or in 'request' object");
    }
    if (ro.exp == null) throw fail('invalid_request_object', "Missing parameter in the 'request' object: exp");
    const now = nowSeconds();
    const exp = Number(ro.exp);
    if (now > exp) throw refuse('invalid_request_object', 'Request Expired');
    const skew = Number(conf['allowed-clock-skew'] ?? 15) || 0;
    const verifyNbf = conf['verify-nbf'] == null ? true : isTrue(conf['verify-nbf']);
    if (verifyNbf) {
      if (ro.nbf == null) throw fail('invalid_request_object', "Missing parameter in the 'request' object: nbf");
      const nbf = Number(ro.nbf);
      if (now < nbf - skew) throw fail('invalid_request_object', 'Request not yet being processed');
      const period = Number(conf['available-period'] ?? 3600) || 3600;
      if (exp - nbf > period) throw fail('invalid_request_object', "Request's available period is long");
    }
    if (ro.iat != null && now < Number(ro.iat) - skew) throw fail('invalid_request_object', 'Request issued in the future');
    if (ro.aud == null) throw fail('invalid_request_object', "Missing parameter in the 'request' object: aud");
    const aud = Array.isArray(ro.aud) ? ro.aud.map(String) : [String(ro.aud)];
    if (!aud.length) throw fail('invalid_request_object', "Missing parameter value in the 'request' object: aud");
    if (!c.issuer || !aud.includes(c.issuer)) throw fail('invalid_request_object', "Invalid parameter in the 'request' object: aud");
    const inObject = asParams(ro);
    const mismatch = KNOWN_PARAMS.some((p) => params[p] !== undefined && inObject[p] !== params[p]);
    if (mismatch) {
      throw fail('invalid_request', "Invalid parameter. Parameters in 'request' object not matching with request parameters");
    }
    if (isTrue(conf['encryption-required']) && !c.requestObjectEncrypted)
      throw refuse('invalid_request_object', 'Request object not encrypted');
  },
};

/**
 * secure-par-content (PRE_AUTHORIZATION_REQUEST): the authorization request names a pushed request
 * and sends no parameter the pushed request did not hold; otherwise the pushed request is dropped.
 */
const secureParContent: Executor = {
  async run(_conf, c) {
    if (c.event !== 'PRE_AUTHORIZATION_REQUEST') return;
    const query = c.rawParams ?? c.params ?? {};
    const requestUri = query.request_uri;
    if (!requestUri) throw refuse('invalid_request', 'request_uri not included.');
    if (!isParRequestUri(requestUri)) throw refuse('invalid_request', 'PAR request_uri not included.');
    const pushed = await peekPushedRequest(c.db, c.realm, requestUri);
    if (!pushed) throw refuse('invalid_request', 'PAR not found. not issued or used multiple times.');
    const names = new Set(Object.keys(pushed.params));
    if (pushed.params.request && c.client) {
      names.delete('request');
      const ro = await parseRequestObject(c.db, c.realm, c.client, pushed.params.request);
      if (!(ro instanceof RequestProblem)) for (const k of Object.keys(asParams(ro.claims))) names.add(k);
    }
    for (const name of Object.keys(query)) {
      if (name !== 'request_uri' && !names.has(name)) {
        await removePushedRequest(c.db, requestUri);
        throw refuse('invalid_request', 'PAR request did not include necessary parameters');
      }
    }
  },
};

/** secure-session: an OpenID authorization request carries a nonce, any other a state. */
const secureSession: Executor = {
  run(_conf, c) {
    if (c.event !== 'AUTHORIZATION_REQUEST') return;
    const openid = String(c.params?.scope ?? '')
      .split(' ')
      .includes('openid');
    if (openid && !c.params?.nonce) throw refuse('invalid_request', 'Missing parameter: nonce');
    if (!openid && !c.params?.state) throw refuse('invalid_request', 'Missing parameter: state');
  },
};

export const FAPI_EXECUTORS: Record<string, Executor> = {
  'secure-client-uris': secureClientUris,
  'secure-par-content': secureParContent,
  'secure-request-object': secureRequestObject,
  'secure-session': secureSession,
  'secure-signature-algorithm': secureSignatureAlgorithm,
  'secure-signature-algorithm-signed-jwt': secureSignatureAlgorithmSignedJwt,
};
