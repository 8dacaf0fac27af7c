import type { OptionSpec } from './option-spec';

/**
 * Client certificates forwarded by a reverse proxy that terminates TLS (RFC 8705 certificate-bound
 * tokens, the `client-x509` authenticator), with Keycloak's option names: `spi-x509cert-lookup-provider`
 * says how the proxy sends the certificate (`nginx`: URL-encoded PEM, `apache` and `haproxy`: PEM or
 * base64 DER, `envoy`: `x-forwarded-client-cert`), `spi-x509cert-lookup-ssl-client-cert` names the
 * header. With `default` no header is read: the server never trusts a certificate a client sends itself.
 */
export type X509LookupProvider = 'default' | 'nginx' | 'apache' | 'haproxy' | 'envoy';

export interface X509LookupConfig {
  provider: X509LookupProvider;
  /** The header carrying the client certificate (nginx, apache, haproxy). */
  header?: string;
}

const PROVIDERS: X509LookupProvider[] = ['default', 'nginx', 'apache', 'haproxy', 'envoy'];

export const x509Options: OptionSpec[] = [
  {
    name: 'spi-x509cert-lookup-provider',
    group: 'Proxy',
    description:
      'How a TLS-terminating reverse proxy forwards the client certificate: default (not at all; no header is trusted), nginx, apache, haproxy or envoy.',
    default: 'default',
    parse: (raw) => {
      const v = raw.trim().toLowerCase() as X509LookupProvider;
      if (!PROVIDERS.includes(v)) throw new Error(`must be one of: ${PROVIDERS.join(', ')}`);
      return v;
    },
  },
  {
    name: 'spi-x509cert-lookup-ssl-client-cert',
    group: 'Proxy',
    description: 'The request header holding the client certificate (nginx, apache, haproxy), e.g. SSL_CLIENT_CERT.',
    parse: (raw) => {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(raw.trim())) throw new Error('must be a header name');
      return raw.trim();
    },
  },
];

/** The lookup configuration from the option values; throws when a header-reading provider names no header. */
export function x509LookupFromValues(values: Record<string, unknown>): X509LookupConfig {
  const provider = (values['spi-x509cert-lookup-provider'] as X509LookupProvider | undefined) ?? 'default';
  const header = values['spi-x509cert-lookup-ssl-client-cert'] as string | undefined;
  if ((provider === 'nginx' || provider === 'apache' || provider === 'haproxy') && !header)
    throw new Error(`spi-x509cert-lookup-provider=${provider} needs spi-x509cert-lookup-ssl-client-cert (the header's name)`);
  return { provider, header };
}
