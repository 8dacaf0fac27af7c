import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createdId } from '../helpers/fixtures';
import { describeWithSlapd, ldapComponent, PEOPLE_DN, startSlapd, type TestSlapd } from '../helpers/slapd';
import { type LoginWorld, loginWorld } from '../login/browser-client';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * The certificate mapper (`certificate-ldap-mapper`, Keycloak's CertificateLDAPStorageMapper, a
 * user-attribute mapper) against slapd, whose inetOrgPerson `userCertificate` is binary and travels
 * with the `;binary` option (slapd refuses it without): with `is.binary.attribute` the DER is the user
 * attribute's base64 (a PEM body), and with `is.der.formatted` a PEM value given for a new user is
 * written to the entry as its DER. The mapper factory's checks are Keycloak's.
 */
const R = 'ldapcert';
const MAPPER_TYPE = 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper';
let w: LoginWorld;
let slapd: TestSlapd;
let ldapId: string;
let der: Buffer;
let pem: string;

jest.setTimeout(120_000);

const dnOf = (uid: string) => `uid=${uid},${PEOPLE_DN}`;

function certificate(cn: string): { der: Buffer; pem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'idserver-cert-'));
  try {
    const args = ['req', '-x509', '-newkey', 'rsa:1024', '-nodes', '-days', '2', '-subj', `/CN=${cn}`];
    execFileSync('openssl', [...args, '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-in', join(dir, 'c.pem'), '-outform', 'DER', '-out', join(dir, 'c.der')], { stdio: 'ignore' });
    return { der: readFileSync(join(dir, 'c.der')), pem: readFileSync(join(dir, 'c.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mapper = (name: string, config: Record<string, string>) => ({
  name,
  providerId: 'certificate-ldap-mapper',
  providerType: MAPPER_TYPE,
  parentId: ldapId,
  config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
});

async function user(username: string) {
  const [u] = (await w.api.get(`/admin/realms/${R}/users?username=${username}&exact=true&briefRepresentation=false`).expect(200)).body;
  return u;
}

describeWithSlapd('LDAP certificate mapper', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ der, pem } = certificate('certperson'));
    w = await loginWorld(R);
    const realmId = (await w.api.get(`/admin/realms/${R}`).expect(200)).body.id;
    ldapId = createdId(
      await w.api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, { editMode: 'WRITABLE', syncRegistrations: 'true' })),
      'ldap provider',
    );
    // Unmanaged attributes are kept, so that the certificate attribute shows and can be given.
    const profile = (await w.api.get(`/admin/realms/${R}/users/profile`).expect(200)).body;
    await w.api.put(`/admin/realms/${R}/users/profile`, { ...profile, unmanagedAttributePolicy: 'ENABLED' }).expect(200);
    const c = await slapd.admin();
    try {
      await c.add(dnOf('certperson'), {
        objectClass: 'inetOrgPerson',
        uid: 'certperson',
        cn: 'Cert Person',
        sn: 'Person',
        'userCertificate;binary': der as unknown as string,
      });
    } finally {
      await c.unbind();
    }
  });
  afterAll(async () => {
    await closeLdapPools();
    await w?.ts.close();
    await slapd?.close();
  });

  test("the factory's checks: DER needs a binary attribute, a binary attribute is always read from LDAP", async () => {
    const der = await w.api
      .post(
        `/admin/realms/${R}/components`,
        mapper('bad', {
          'user.model.attribute': 'cert',
          'ldap.attribute': 'userCertificate',
          'is.der.formatted': 'true',
          'always.read.value.from.ldap': 'true',
        }),
      )
      .expect(400);
    expect(der.body.errorMessage).toBe("With DER formatted certificate enabled, the 'Is Binary Attribute' option must be enabled too");
    const binary = await w.api
      .post(
        `/admin/realms/${R}/components`,
        mapper('bad', { 'user.model.attribute': 'cert', 'ldap.attribute': 'userCertificate', 'is.binary.attribute': 'true' }),
      )
      .expect(400);
    expect(binary.body.errorMessage).toBe("With Binary attribute enabled, the 'Always read value from LDAP' must be enabled too");
  });

  test("a DER certificate in userCertificate;binary is the user attribute's base64; a PEM given for a new user is written as DER", async () => {
    await w.api
      .post(
        `/admin/realms/${R}/components`,
        mapper('certificate', {
          'user.model.attribute': 'x509Certificate',
          'ldap.attribute': 'userCertificate;binary',
          'is.binary.attribute': 'true',
          'is.der.formatted': 'true',
          'always.read.value.from.ldap': 'true',
          'read.only': 'false',
        }),
      )
      .expect(201);
    // Named without the option, the attribute reads the `;binary` values slapd returns.
    await w.api
      .post(
        `/admin/realms/${R}/components`,
        mapper('certificate, plain name', {
          'user.model.attribute': 'x509Plain',
          'ldap.attribute': 'userCertificate',
          'is.binary.attribute': 'true',
          'always.read.value.from.ldap': 'true',
          'read.only': 'true',
        }),
      )
      .expect(201);
    await w.api.get(`/admin/realms/${R}/users?search=certperson`).expect(200);
    const attrs = (await user('certperson')).attributes;
    expect(attrs.x509Certificate).toEqual([der.toString('base64')]);
    expect(attrs.x509Plain).toEqual([der.toString('base64')]);
    // The base64 is the PEM's body.
    expect(pem.replace(/-----[^-]+-----|\s/g, '')).toBe(der.toString('base64'));

    const other = certificate('certnew');
    await w.api
      .post(`/admin/realms/${R}/users`, { username: 'certnew', enabled: true, attributes: { x509Certificate: [other.pem] } })
      .expect(201);
    const entry = await slapd.entry(dnOf('certnew'), ['userCertificate;binary']);
    expect(Buffer.from(entry?.['userCertificate;binary'] as Buffer)).toEqual(other.der);
  });
});
