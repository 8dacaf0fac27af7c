// @database-independent
import type express from 'express';
import { x509LookupFromValues } from '../../src/config/x509-options';
import { clientCertificateOf } from '../../src/oidc/client-cert';
import { clientCertificate } from '../helpers/dpop';

/**
 * The client certificate as each reverse proxy forwards it (Keycloak's X509ClientCertificateLookup
 * providers): nginx URL-encodes the PEM, apache sends PEM with its line breaks as spaces, haproxy
 * base64 DER, envoy the `Chain` of `x-forwarded-client-cert`. With `default` no header is read.
 */
const cert = clientCertificate('proxied');
const b64 = cert.der.toString('base64');
const req = (headers: Record<string, string>) => ({ headers }) as unknown as express.Request;
const expected = { x5t: cert.x5t, subjectDn: 'CN=proxied,O=idserver-test' };

test('each provider reads its proxy’s format', () => {
  expect(
    clientCertificateOf(req({ 'ssl-client-cert': encodeURIComponent(cert.pem) }), { provider: 'nginx', header: 'ssl-client-cert' }),
  ).toEqual(expected);
  const apache = cert.pem.replace(/\n/g, ' ');
  expect(clientCertificateOf(req({ ssl_client_cert: apache }), { provider: 'apache', header: 'SSL_CLIENT_CERT' })).toEqual(expected);
  expect(clientCertificateOf(req({ 'x-ssl-client-cert': b64 }), { provider: 'haproxy', header: 'X-SSL-Client-Cert' })).toEqual(expected);
  const xfcc = `By=spiffe://idserver;Hash=abc;Chain="${encodeURIComponent(cert.pem)}";Subject="CN=proxied"`;
  expect(clientCertificateOf(req({ 'x-forwarded-client-cert': xfcc }), { provider: 'envoy' })).toEqual(expected);
});

test('no provider, another header, or a header without a certificate: no certificate', () => {
  expect(clientCertificateOf(req({ 'ssl-client-cert': b64 }), { provider: 'default' })).toBeUndefined();
  expect(clientCertificateOf(req({ 'ssl-client-cert': b64 }), undefined)).toBeUndefined();
  expect(clientCertificateOf(req({ other: b64 }), { provider: 'haproxy', header: 'ssl-client-cert' })).toBeUndefined();
  expect(clientCertificateOf(req({ 'ssl-client-cert': '(null)' }), { provider: 'apache', header: 'ssl-client-cert' })).toBeUndefined();
  expect(clientCertificateOf(req({ 'ssl-client-cert': 'AAAA' }), { provider: 'haproxy', header: 'ssl-client-cert' })).toBeUndefined();
  expect(clientCertificateOf(req({ 'x-forwarded-client-cert': 'Hash=abc' }), { provider: 'envoy' })).toBeUndefined();
});

test('a header-reading provider needs the header’s name', () => {
  expect(() => x509LookupFromValues({ 'spi-x509cert-lookup-provider': 'nginx' })).toThrow(/needs spi-x509cert-lookup-ssl-client-cert/);
  expect(x509LookupFromValues({ 'spi-x509cert-lookup-provider': 'envoy' })).toEqual({ provider: 'envoy', header: undefined });
  expect(x509LookupFromValues({})).toEqual({ provider: 'default', header: undefined });
});
