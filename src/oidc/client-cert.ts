import { createHash, X509Certificate } from 'node:crypto';
import type express from 'express';
import type { X509LookupConfig } from '../config/x509-options';
import { getLogger } from '../logging';
import type { ClientCertificate } from '../services/tokens/token-binding';

const log = getLogger('idserver.oidc.x509');

/**
 * The client certificate of a request, as a TLS-terminating reverse proxy forwards it (Keycloak's
 * X509ClientCertificateLookup providers nginx, apache, haproxy, envoy). Read only when the server
 * option names a provider: with `default` a header is never believed. A header that holds no valid
 * certificate counts as no certificate.
 */

/** A PEM certificate or bare base64 DER (line breaks, spaces and the BEGIN/END lines allowed). */
function parse(text: string): X509Certificate | undefined {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!body || !/^[A-Za-z0-9+/=]+$/.test(body)) return undefined;
  try {
    return new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    return undefined;
  }
}

const unquote = (v: string) => (v.length > 1 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v);

const decode = (v: string) => {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return '';
  }
};

/** The first certificate of envoy's `x-forwarded-client-cert` `Chain` (URL-encoded PEMs). */
function envoyCert(header: string): X509Certificate | undefined {
  const fields = new Map(
    header
      .split(';')
      .map((s) => s.split('='))
      .filter((kv) => kv.length === 2)
      .map(([k, v]) => [k.trim(), v.trim()] as [string, string]),
  );
  const chain = fields.get('Chain');
  if (!chain) return undefined;
  const first = decode(unquote(chain))
    .replace(/["\r\n]/g, '')
    .split(/(?<=-----END CERTIFICATE-----)/)[0];
  return first ? parse(first) : undefined;
}

/** RFC 2253 form of a node subject (`CN=a\nO=b` → `O=b,CN=a`), as Java's X500Principal#getName prints it. */
function rfc2253(subject: string): string {
  return subject
    .split('\n')
    .filter(Boolean)
    .reverse()
    .map((rdn) => rdn.replace(/\\/g, '\\\\').replace(/([,+"<>;])/g, '\\$1'))
    .join(',');
}

/** The request's client certificate under `config`, or undefined. */
export function clientCertificateOf(req: express.Request, config: X509LookupConfig | undefined): ClientCertificate | undefined {
  if (!config || config.provider === 'default') return undefined;
  let cert: X509Certificate | undefined;
  if (config.provider === 'envoy') {
    const v = req.headers['x-forwarded-client-cert'];
    cert = typeof v === 'string' ? envoyCert(v) : undefined;
  } else {
    const raw = config.header ? req.headers[config.header.toLowerCase()] : undefined;
    const v = typeof raw === 'string' ? unquote(raw.trim()) : '';
    if (v && v !== '(null)') cert = parse(config.provider === 'nginx' ? decode(v) : v);
    if (v && !cert) log.warn(`HTTP header "${config.header}" does not contain a valid x.509 certificate`);
  }
  if (!cert) return undefined;
  return { x5t: createHash('sha256').update(cert.raw).digest('base64url'), subjectDn: rfc2253(cert.subject) };
}

/** What a token, userinfo or admin request offers to prove its sender: the `DPoP` header, the URL it must name, the client certificate. */
export function senderProofs(
  req: express.Request,
  baseUrl: string,
  config: X509LookupConfig | undefined,
): { dpop?: string; url: string; clientCert?: ClientCertificate } {
  const dpop = req.headers.dpop;
  return {
    dpop: typeof dpop === 'string' ? dpop : undefined,
    url: `${baseUrl}${req.originalUrl}`,
    clientCert: clientCertificateOf(req, config),
  };
}
