import { decodeJwt, type JWTPayload } from 'jose';
import type { ClientRepresentation } from '../../representations/client';
import type { ProviderConfiguration } from '../../representations/client-policy';
import { DPoPProofError, verifyDPoPProof } from '../tokens/dpop';
import { verifiedPayload } from '../tokens/token-check';
import { ClientPolicyViolation, type PolicyContext } from './types';

/**
 * The sender-constraining executors (ADR 0038): `dpop-bind-enforcer` and `holder-of-key-enforcer`,
 * as Keycloak's DPoPBindEnforcerExecutor and HolderOfKeyEnforcerExecutor on client writes, the
 * authorization request and the token requests. The token endpoint has verified the DPoP proof and
 * read the client certificate before the policies run (`c.binding`).
 */
interface Executor {
  run(conf: ProviderConfiguration, c: PolicyContext): void | Promise<void>;
}

const isTrue = (v: unknown) => v === true || v === 'true';
const refuse = (error: string, detail: string, status?: number) => new ClientPolicyViolation(error, detail, status);
const crud = (c: PolicyContext) => c.event === 'REGISTER' || c.event === 'UPDATE';
const attrsOf = (rep: ClientRepresentation): Record<string, string> => {
  rep.attributes = { ...((rep.attributes as Record<string, string> | undefined) ?? {}) };
  return rep.attributes as Record<string, string>;
};
const clientAttr = (c: PolicyContext, key: string): string | undefined =>
  (c.client?.settings?.attributes as Record<string, string> | undefined)?.[key];

const DPOP = 'dpop.bound.access.tokens';
const MTLS = 'tls.client.certificate.bound.access.tokens';
const CERT_MISMATCH = 'Client certificate missing, or its thumbprint and one in the refresh token did NOT match';

/** The claims of the refresh token a request presents, unverified (the grant verifies it), or undefined. */
function refreshClaims(c: PolicyContext): JWTPayload | undefined {
  const token = c.params?.refresh_token;
  if (!token) return undefined;
  try {
    return decodeJwt(token);
  } catch {
    return undefined;
  }
}

/** The revoked token of a TOKEN_REVOKE, verified with the realm's keys (Keycloak's session.tokens().decode), or undefined. */
async function revokedToken(c: PolicyContext): Promise<JWTPayload | undefined> {
  const token = c.params?.token;
  if (!token) return undefined;
  return (await verifiedPayload(c.db, c.realm, token)) ?? undefined;
}

/**
 * dpop-bind-enforcer: written clients use DPoP (`auto-configure` turns it on); authorization requests
 * carry `dpop_jkt` when `enforce-authorization-code-binding-to-dpop`; a public client without
 * `dpop.bound.access.tokens` under `allow-only-refresh-token-binding` must send a proof, and only
 * its refresh token is bound; a CIBA token request (BACKCHANNEL_TOKEN_REQUEST) must send a proof,
 * whatever the client (the token endpoint verified it already, as Keycloak checks only its presence);
 * a revocation (TOKEN_REVOKE) needs a valid proof, and the revoked token, when it verifies, must be
 * bound to its key.
 */
const dpopBindEnforcer: Executor = {
  async run(conf, c) {
    if (crud(c) && c.rep) {
      if (isTrue(conf['auto-configure'])) attrsOf(c.rep)[DPOP] = 'true';
      if ((c.rep.attributes as Record<string, string> | undefined)?.[DPOP] !== 'true')
        throw refuse('invalid_client_metadata', 'Invalid client metadata: DPoP token in disabled');
      return;
    }
    if (c.event === 'AUTHORIZATION_REQUEST') {
      if (isTrue(conf['enforce-authorization-code-binding-to-dpop']) && !c.params?.dpop_jkt)
        throw refuse('invalid_request', 'Missing parameter: dpop_jkt');
      return;
    }
    if (c.event === 'TOKEN_REQUEST' || c.event === 'TOKEN_REFRESH') {
      if (clientAttr(c, DPOP) === 'true' || !isTrue(conf['allow-only-refresh-token-binding']) || !c.client?.publicClient) return;
      if (!c.binding?.jkt) throw refuse('invalid_dpop_proof', 'DPoP proof is missing');
      c.binding.bindOnlyRefresh = true;
      return;
    }
    if (c.event === 'BACKCHANNEL_TOKEN_REQUEST' && !c.binding?.jkt) throw refuse('invalid_dpop_proof', 'DPoP proof is missing');
    if (c.event === 'TOKEN_REVOKE') {
      let jkt: string;
      try {
        jkt = (await verifyDPoPProof(c.db, { proof: c.revocation?.dpop, method: 'POST', url: c.revocation?.url ?? '' })).jkt;
      } catch (e) {
        if (e instanceof DPoPProofError) throw refuse('invalid_dpop_proof', e.message);
        throw e;
      }
      const claims = await revokedToken(c);
      if (claims && ((claims.cnf ?? {}) as Record<string, unknown>).jkt !== jkt)
        throw refuse('invalid_token', 'DPoP proof and token binding verification failed');
    }
  },
};

/**
 * holder-of-key-enforcer: written clients bind their tokens to their TLS certificate
 * (`auto-configure` turns it on); token requests need a client certificate, a refresh needs the
 * certificate its refresh token is bound to, and so does a revocation (TOKEN_REVOKE, 401 `not_allowed`)
 * of a token that verifies.
 */
const holderOfKeyEnforcer: Executor = {
  async run(conf, c) {
    if (crud(c) && c.rep) {
      if (isTrue(conf['auto-configure'])) attrsOf(c.rep)[MTLS] = 'true';
      if ((c.rep.attributes as Record<string, string> | undefined)?.[MTLS] !== 'true')
        throw refuse('invalid_client_metadata', 'Invalid client metadata: MTLS token in disabled');
      return;
    }
    if (c.event === 'TOKEN_REQUEST' || c.event === 'SERVICE_ACCOUNT_TOKEN_REQUEST' || c.event === 'BACKCHANNEL_TOKEN_REQUEST') {
      if (!c.clientCert) throw refuse('invalid_request', 'Client Certification missing for MTLS HoK Token Binding');
      return;
    }
    if (c.event === 'TOKEN_REFRESH') {
      const claims = refreshClaims(c);
      if (!claims) return;
      const cnf = (claims.cnf ?? {}) as Record<string, unknown>;
      if (!c.clientCert || cnf['x5t#S256'] !== c.clientCert.x5t) throw refuse('invalid_grant', CERT_MISMATCH);
      return;
    }
    if (c.event === 'TOKEN_REVOKE') {
      const claims = await revokedToken(c);
      if (!claims) return;
      const cnf = (claims.cnf ?? {}) as Record<string, unknown>;
      if (!c.clientCert || cnf['x5t#S256'] !== c.clientCert.x5t) throw refuse('not_allowed', CERT_MISMATCH, 401);
    }
  },
};

export const BINDING_EXECUTORS: Record<string, Executor> = {
  'dpop-bind-enforcer': dpopBindEnforcer,
  'holder-of-key-enforcer': holderOfKeyEnforcer,
};
