import { nowSeconds } from '../../core/clock';
import type { ProviderConfiguration } from '../../representations/client-policy';
import { ClientPolicyViolation, type PolicyContext } from './types';

/**
 * The executors of the fapi-ciba profile (ADR 0044), as Keycloak 26's
 * SecureCibaSessionEnforceExecutor, SecureCibaSignedAuthenticationRequestExecutor and
 * SecureCibaAuthenticationRequestSigningAlgorithmExecutor: a backchannel authentication request
 * carries a binding message and a signed request object with short-lived, well-addressed claims;
 * a written client signs its requests with a PS or ES algorithm.
 */
interface Executor {
  run(conf: ProviderConfiguration, c: PolicyContext): void | Promise<void>;
}

const refuse = (detail: string) => new ClientPolicyViolation('invalid_request', detail);
const SIG_ALG = 'ciba.backchannel.auth.request.signing.alg';
const SECURE_ALGS = new Set(['PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']);

/** secure-ciba-session: a backchannel authentication request names a binding message. */
const secureCibaSession: Executor = {
  run(_conf, c) {
    if (c.event !== 'BACKCHANNEL_AUTHENTICATION_REQUEST') return;
    if (c.ciba?.bindingMessage == null) throw refuse('Missing parameter: binding_message');
  },
};

/**
 * secure-ciba-signed-authn-req: the request came as a verified signed request object (`request` or
 * `request_uri`) with `exp` (not passed), `nbf` (reached, at most `available-period` before `exp`),
 * `aud` naming the realm, `iss` the client, `iat` and `jti`.
 */
const secureCibaSignedAuthnReq: Executor = {
  run(conf, c) {
    if (c.event !== 'BACKCHANNEL_AUTHENTICATION_REQUEST') return;
    const raw = c.rawParams;
    if (!raw) throw refuse('Missing parameters');
    if (raw.request == null && raw.request_uri == null) throw refuse("Missing parameter: 'request' or 'request_uri'");
    const ro = c.requestObject;
    if (!ro || !Object.keys(ro).length) throw refuse("Invalid parameter: : 'request' or 'request_uri'");
    const now = nowSeconds();
    if (ro.exp == null) throw refuse('Missing parameter in the signed authentication request: exp');
    const exp = Number(ro.exp);
    if (now > exp) throw refuse('Request Expired');
    if (ro.nbf == null) throw refuse('Missing parameter in the signed authentication request: nbf');
    const nbf = Number(ro.nbf);
    if (now < nbf) throw refuse('Request not yet being processed');
    const period = Number(conf['available-period'] ?? 3600) || 3600;
    if (exp - nbf > period) throw refuse("signed authentication request's available period is long");
    if (ro.aud == null) throw refuse("Missing parameter in the 'request' object: aud");
    const aud = Array.isArray(ro.aud) ? ro.aud.map(String) : [String(ro.aud)];
    if (!aud.length) throw refuse("Missing parameter value in the 'request' object: aud");
    if (!c.issuer || !aud.includes(c.issuer)) throw refuse("Invalid parameter in the 'request' object: aud");
    if (ro.iss == null) throw refuse("Missing parameter in the 'request' object: iss");
    if (String(ro.iss) !== c.client?.clientId) throw refuse("Invalid parameter in the 'request' object: iss");
    if (ro.iat == null) throw refuse('Missing parameter in the signed authentication request: iat');
    if (ro.jti == null) throw refuse('Missing parameter in the signed authentication request: jti');
  },
};

/** secure-ciba-req-sig-algorithm: a written client's CIBA request signing algorithm is PS or ES (unset: `default-algorithm`, PS256). */
const secureCibaReqSigAlgorithm: Executor = {
  run(conf, c) {
    if ((c.event !== 'REGISTER' && c.event !== 'UPDATE') || !c.rep) return;
    const configured = conf['default-algorithm'];
    const def = typeof configured === 'string' && SECURE_ALGS.has(configured) ? configured : 'PS256';
    const attrs = { ...((c.rep.attributes as Record<string, string> | undefined) ?? {}) };
    const alg = attrs[SIG_ALG];
    if (alg == null) {
      attrs[SIG_ALG] = def;
      c.rep.attributes = attrs;
      return;
    }
    if (!SECURE_ALGS.has(alg)) throw refuse('not allowed signature algorithm.');
  },
};

export const CIBA_EXECUTORS: Record<string, Executor> = {
  'secure-ciba-req-sig-algorithm': secureCibaReqSigAlgorithm,
  'secure-ciba-session': secureCibaSession,
  'secure-ciba-signed-authn-req': secureCibaSignedAuthnReq,
};
