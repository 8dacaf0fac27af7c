import type { JWTPayload } from 'jose';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import { DPoPProofError, requiresDPoP, verifyDPoPProof } from './dpop';
import { errorB } from '../../core/errors';
import type { TokenEvent } from './token-events';

/**
 * Sender-constrained tokens at the token endpoint (ADR 0038): a DPoP proof (RFC 9449) and a client
 * certificate forwarded by the reverse proxy (RFC 8705) become the request's binding, which
 * `issue` writes into the tokens (`cnf.jkt`, `cnf.x5t#S256`) and the refresh grant compares with
 * the refresh token's.
 */

const oauth = (status: number, error: string, description: string) => errorB(status, error, description);

/** A TLS client certificate: its SHA-256 thumbprint (base64url, `x5t#S256`) and subject DN (RFC 2253). */
export interface ClientCertificate {
  x5t: string;
  subjectDn: string;
}

/** What of a token request (tokens.ts TokenRequest) the binding reads and sets. */
interface BindingRequest {
  form: Record<string, string | undefined>;
  dpop?: string;
  url?: string;
  clientCert?: ClientCertificate;
  binding?: TokenBinding;
}

/** What the tokens of a request are bound to. */
export interface TokenBinding {
  /** The DPoP proof's key thumbprint. */
  jkt?: string;
  /** Bind only the refresh token to `jkt` (dpop-bind-enforcer `allow-only-refresh-token-binding`). */
  bindOnlyRefresh?: boolean;
  /** The client certificate's SHA-256 thumbprint, when the client wants certificate-bound tokens. */
  x5t?: string;
}

const attr = (client: ClientModel, key: string) => (client.settings?.attributes as Record<string, string> | undefined)?.[key];

/** Whether the client wants certificate-bound tokens (`tls.client.certificate.bound.access.tokens`). */
export const requiresCertificateBinding = (client: ClientModel) => attr(client, 'tls.client.certificate.bound.access.tokens') === 'true';

/**
 * Keycloak's handleDPoPHeader for a token request: verifies the `DPoP` header when sent or required
 * (400 `invalid_request` with the reason, event error `invalid_dpop_proof`). Sets `req.binding`.
 * Runs before the client policies, as in Keycloak; the certificate is taken after them
 * (bindClientCertificate).
 */
export async function bindTokenRequest(db: Db, client: ClientModel, req: BindingRequest, ev: TokenEvent): Promise<void> {
  const binding: TokenBinding = {};
  req.binding = binding;
  if (req.dpop !== undefined || requiresDPoP(client)) {
    try {
      binding.jkt = (await verifyDPoPProof(db, { proof: req.dpop, method: 'POST', url: req.url ?? '' })).jkt;
    } catch (e) {
      if (!(e instanceof DPoPProofError)) throw e;
      ev.detail('reason', e.message);
      throw await ev.fail('invalid_dpop_proof', oauth(400, 'invalid_request', e.message));
    }
  }
}

/**
 * Keycloak's MtlsHoKTokenUtil.bindTokenWithClientCertificate when building the token response:
 * takes the client certificate's thumbprint when the client binds to it (400 when no certificate
 * came). Runs after the client policies, so their executors (e.g. secure-signature-algorithm-signed-jwt
 * before holder-of-key-enforcer) refuse first, as in Keycloak.
 */
export async function bindClientCertificate(client: ClientModel, req: BindingRequest, ev: TokenEvent): Promise<void> {
  if (!requiresCertificateBinding(client) || req.form.grant_type === 'refresh_token') return;
  if (!req.clientCert)
    throw await ev.fail('invalid_request', oauth(400, 'invalid_request', 'Client Certification missing for MTLS HoK Token Binding'));
  req.binding = Object.assign(req.binding ?? {}, { x5t: req.clientCert.x5t });
}

/** The `cnf` of the access token and of the refresh token of a grant (public clients' refresh tokens carry the DPoP key too). */
export function confirmations(client: ClientModel, binding: TokenBinding | undefined): { access?: JWTPayload; refresh?: JWTPayload } {
  if (!binding) return {};
  const x5t = binding.x5t ? { 'x5t#S256': binding.x5t } : {};
  const accessJkt = binding.jkt && !binding.bindOnlyRefresh ? { jkt: binding.jkt } : {};
  const refreshJkt = binding.jkt && (client.publicClient || binding.bindOnlyRefresh) ? { jkt: binding.jkt } : {};
  const cnf = (o: Record<string, string | undefined>) => (Object.keys(o).length ? (o as JWTPayload) : undefined);
  return { access: cnf({ ...accessJkt, ...x5t }), refresh: cnf({ ...refreshJkt, ...x5t }) };
}

/**
 * The refresh grant's checks of a bound refresh token (Keycloak's TokenManager.verifyRefreshToken):
 * the client certificate of a certificate-binding client must be the one the token names, a
 * DPoP-bound token needs a proof of its key. Returns the OAuth error to answer, if any.
 */
export function refreshBindingError(
  client: ClientModel,
  claims: JWTPayload,
  req: BindingRequest,
): { error: string; description: string } | undefined {
  const cnf = (claims.cnf ?? {}) as Record<string, unknown>;
  if (requiresCertificateBinding(client)) {
    if (!req.clientCert || cnf['x5t#S256'] !== req.clientCert.x5t)
      return {
        error: 'unauthorized_client',
        description: 'Client certificate missing, or its thumbprint and one in the refresh token did NOT match',
      };
    if (req.binding) req.binding.x5t = req.clientCert.x5t;
  }
  if (typeof cnf.jkt === 'string') {
    if (!req.binding?.jkt) return { error: 'invalid_grant', description: 'DPoP proof is missing' };
    if (req.binding.jkt !== cnf.jkt) return { error: 'invalid_grant', description: "DPoP confirmation doesn't match DPoP proof" };
  }
  return undefined;
}

/** A DN's RDNs, trimmed and in lower case, for Keycloak's exact comparison (X500Principal equality). */
const canonicalDn = (dn: string) =>
  dn
    .split(/(?<!\\),/)
    .map((rdn) =>
      rdn
        .split('=')
        .map((p) => p.trim())
        .join('=')
        .toLowerCase(),
    )
    .join(',');

/**
 * The `client-x509` authenticator (Keycloak's X509ClientAuthenticator, `tls_client_auth`): a
 * forwarded client certificate whose subject DN matches the client's `x509.subjectdn`, as a
 * regular expression on the whole DN (RFC 2253) unless `x509.allow.regex.pattern.comparison` is
 * `false`, then as the same DN.
 */
export function x509Authenticates(client: ClientModel, cert: ClientCertificate | undefined): boolean {
  const expected = attr(client, 'x509.subjectdn');
  if (!cert || !expected) return false;
  if (attr(client, 'x509.allow.regex.pattern.comparison') === 'false') return canonicalDn(expected) === canonicalDn(cert.subjectDn);
  try {
    return new RegExp(`^(?:${expected})$`).test(cert.subjectDn);
  } catch {
    return false;
  }
}
