import request from 'supertest';
import { createClient } from '../helpers/fixtures';
import { clientCertificate } from '../helpers/dpop';
import { startTestServer } from '../helpers/server';
import { rpFixture } from './rp-fixture';

/**
 * Without `--spi-x509cert-lookup-provider` (ADR 0038) the server believes no certificate header: a
 * client could otherwise name any certificate it likes. (A file of its own: the model classes of
 * one process serve one test server at a time.)
 */
const cert = clientCertificate('hok-client');
const nginx = (c: { pem: string }) => encodeURIComponent(c.pem);

test('a server without the lookup option believes no certificate header', async () => {
  const plain = await startTestServer();
  try {
    const admin = await plain.api();
    const R2 = 'mtls-plain';
    await rpFixture(plain, R2);
    await createClient(admin, R2, {
      clientId: 'hok',
      secret: 'hok-secret',
      directAccessGrantsEnabled: true,
      attributes: { 'tls.client.certificate.bound.access.tokens': 'true' },
    });
    const res = await request(plain.app)
      .post(`/realms/${R2}/protocol/openid-connect/token`)
      .type('form')
      .set('ssl-client-cert', nginx(cert))
      .send({ grant_type: 'password', client_id: 'hok', client_secret: 'hok-secret', username: 'alice', password: 'alice-pw' });
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('Client Certification missing for MTLS HoK Token Binding');
  } finally {
    await plain.close();
  }
});
