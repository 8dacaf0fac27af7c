import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { stablePort } from './ports';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, NoSuchObjectError } from 'ldapts';

/**
 * A private OpenLDAP server for tests (Debian's `slapd`, installed by `.ci/run`): its own temp dir,
 * an mdb database under `dc=example,dc=org` seeded with slapadd (ou=People with a few inetOrgPerson
 * users, ou=Groups with groupOfNames; the memberof overlay keeps the users' memberOf), a self-signed certificate for StartTLS, listening on its
 * own port on 127.0.0.1. `stop()` / `start()` take the directory down and up again on the same port.
 */
export const BASE_DN = 'dc=example,dc=org';
export const PEOPLE_DN = `ou=People,${BASE_DN}`;
export const GROUPS_DN = `ou=Groups,${BASE_DN}`;
export const ROOT_DN = `cn=admin,${BASE_DN}`;
export const ROOT_PW = 'ldap-admin-secret';
const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';

/** The seeded users: uid → [givenName, sn, mail, password]. */
export const SEED_USERS: Record<string, [string, string, string, string]> = {
  jbrown: ['James', 'Brown', 'jbrown@example.org', 'jbrown-pw'],
  bwilson: ['Bruce', 'Wilson', 'bwilson@example.org', 'bwilson-pw'],
  rsmith: ['Rob', 'Smith', 'rsmith@example.org', 'rsmith-pw'],
};

export interface TestSlapd {
  url: string;
  port: number;
  /** The CA (its own self-signed certificate) a StartTLS client must trust. */
  caFile: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** An ldapts client bound as the root DN (closed by the caller). */
  admin(): Promise<Client>;
  /** Adds an inetOrgPerson under ou=People. */
  addUser(uid: string, given: string, sn: string, mail: string, password: string): Promise<void>;
  /**
   * Adds `cn={cn},ou=Groups` over LDAP (so the memberof overlay sets the members' `memberOf`, which
   * slapadd does not): a groupOfNames with these member DNs, or the attributes given (e.g. a posixGroup).
   */
  addGroup(cn: string, members: string[] | Record<string, string | string[]>): Promise<string>;
  /** An entry's attributes (undefined when it does not exist). */
  entry(dn: string, attributes: string[]): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

/** Whether slapd is installed (CI installs it; a developer machine may not have it). */
export const haveSlapd = () => existsSync(SLAPD) && existsSync(SLAPADD);

function personLdif(uid: string, [given, sn, mail, pw]: [string, string, string, string]): string {
  return [
    `dn: uid=${uid},${PEOPLE_DN}`,
    'objectClass: inetOrgPerson',
    `uid: ${uid}`,
    `cn: ${given} ${sn}`,
    `givenName: ${given}`,
    `sn: ${sn}`,
    `mail: ${mail}`,
    `userPassword: ${pw}`,
    '',
  ].join('\n');
}

function seedLdif(): string {
  const head = [
    `dn: ${BASE_DN}`,
    'objectClass: dcObject',
    'objectClass: organization',
    'o: Example',
    'dc: example',
    '',
    `dn: ${PEOPLE_DN}`,
    'objectClass: organizationalUnit',
    'ou: People',
    '',
    `dn: ${GROUPS_DN}`,
    'objectClass: organizationalUnit',
    'ou: Groups',
    '',
  ].join('\n');
  const people = Object.entries(SEED_USERS).map(([uid, v]) => personLdif(uid, v));
  const groups = [
    `dn: cn=developers,${GROUPS_DN}`,
    'objectClass: groupOfNames',
    'cn: developers',
    `member: uid=jbrown,${PEOPLE_DN}`,
    `member: uid=bwilson,${PEOPLE_DN}`,
    '',
    `dn: cn=admins,${GROUPS_DN}`,
    'objectClass: groupOfNames',
    'cn: admins',
    `member: uid=rsmith,${PEOPLE_DN}`,
    '',
  ].join('\n');
  return `${head}\n${people.join('\n')}\n${groups}`;
}

/**
 * Active Directory's account attributes for tests of the MSAD account-control mapper, as an auxiliary
 * class slapd knows (OIDs under a private test arc): `userAccountControl` and `pwdLastSet` (integers),
 * `unicodePwd` (the quoted UTF-16LE password AD takes; slapd only stores it); and AD LDS's
 * (`msDS-UserAccountDisabled`, `msDS-UserPasswordExpired`, `msDS-UserPasswordNotRequired`, booleans)
 * as a second class with `pwdLastSet`, for the MSAD LDS mapper.
 */
const AD_TEST_SCHEMA = `attributetype ( 1.3.6.1.4.1.99999.1.1 NAME 'userAccountControl' EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.99999.1.2 NAME 'pwdLastSet' EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.99999.1.3 NAME 'unicodePwd' SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.99999.2.1 NAME 'idserverTestAdAccount' AUXILIARY MAY ( userAccountControl $ pwdLastSet $ unicodePwd ) )
attributetype ( 1.3.6.1.4.1.99999.1.4 NAME 'msDS-UserAccountDisabled' EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.99999.1.5 NAME 'msDS-UserPasswordExpired' EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.99999.1.6 NAME 'msDS-UserPasswordNotRequired' EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.99999.2.2 NAME 'idserverTestAdLdsAccount' AUXILIARY MAY ( pwdLastSet $ msDS-UserAccountDisabled $ msDS-UserPasswordExpired $ msDS-UserPasswordNotRequired ) )
`;
export const AD_ACCOUNT_CLASS = 'idserverTestAdAccount';
export const AD_LDS_ACCOUNT_CLASS = 'idserverTestAdLdsAccount';

function slapdConf(dir: string): string {
  const schema = ['core', 'cosine', 'nis', 'inetorgperson'].map((s) => `include /etc/ldap/schema/${s}.schema`).join('\n');
  return `${schema}
include ${dir}/ad-test.schema
pidfile ${dir}/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
TLSCertificateFile ${dir}/cert.pem
TLSCertificateKeyFile ${dir}/key.pem
access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read
database mdb
maxsize 16777216
suffix "${BASE_DN}"
rootdn "${ROOT_DN}"
rootpw ${ROOT_PW}
directory ${dir}/db
index objectClass eq
index uid,mail,cn eq,sub
overlay memberof
memberof-group-oc groupOfNames
memberof-member-ad member
memberof-memberof-ad memberOf
`;
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const sock = new Socket();
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
    sock.connect(port, '127.0.0.1');
  });

/** Starts a seeded slapd; throws when slapd is not installed. */
export async function startSlapd(): Promise<TestSlapd> {
  if (!haveSlapd()) throw new Error('slapd is not installed (apt-get install slapd ldap-utils; .ci/run does it)');
  const dir = mkdtempSync(join(tmpdir(), 'idserver-slapd-'));
  mkdirSync(join(dir, 'db'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(join(dir, 'ad-test.schema'), AD_TEST_SCHEMA);
  writeFileSync(join(dir, 'slapd.conf'), slapdConf(dir));
  writeFileSync(join(dir, 'seed.ldif'), seedLdif());
  execFileSync(SLAPADD, ['-f', join(dir, 'slapd.conf'), '-l', join(dir, 'seed.ldif')], { stdio: 'pipe' });
  const port = await stablePort();
  const url = `ldap://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;

  const start = async () => {
    // -d 0: stay in the foreground (so the child is ours to stop) and log nothing.
    proc = spawn(SLAPD, ['-f', join(dir, 'slapd.conf'), '-h', `${url}/`, '-d', '0'], { stdio: 'ignore' });
    const child = proc;
    // A test process that dies without close() must not leave a slapd behind.
    process.once('exit', () => child.kill('SIGKILL'));
    for (let i = 0; i < 100; i++) {
      if (await canConnect(port)) return;
      if (proc.exitCode !== null) throw new Error(`slapd exited with ${proc.exitCode}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('slapd did not start listening');
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  };
  const admin = async () => {
    const c = new Client({ url, timeout: 5000, connectTimeout: 5000 });
    await c.bind(ROOT_DN, ROOT_PW);
    return c;
  };
  await start();
  return {
    url,
    port,
    caFile: join(dir, 'cert.pem'),
    start,
    stop,
    admin,
    async addUser(uid, given, sn, mail, password) {
      const c = await admin();
      try {
        await c.add(`uid=${uid},${PEOPLE_DN}`, {
          objectClass: 'inetOrgPerson',
          uid,
          cn: `${given} ${sn}`,
          givenName: given,
          sn,
          mail,
          userPassword: password,
        });
      } finally {
        await c.unbind();
      }
    },
    async addGroup(cn, members) {
      const dn = `cn=${cn},${GROUPS_DN}`;
      const attrs = Array.isArray(members) ? { objectClass: 'groupOfNames', member: members } : members;
      const c = await admin();
      try {
        await c.add(dn, { cn, ...attrs });
      } finally {
        await c.unbind();
      }
      return dn;
    },
    async entry(dn, attributes) {
      const c = await admin();
      try {
        return (await c.search(dn, { scope: 'base', attributes })).searchEntries[0];
      } catch (e) {
        if (e instanceof NoSuchObjectError) return undefined;
        throw e;
      } finally {
        await c.unbind();
      }
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `describe` when slapd is installed; otherwise the suite is skipped with a warning, except where
 * IDSERVER_REQUIRE_SLAPD is set (CI installs slapd and sets it, so a missing slapd fails there).
 */
export function describeWithSlapd(name: string, fn: () => void): void {
  if (haveSlapd()) {
    describe(name, fn);
    return;
  }
  const message = `${SLAPD} not found: LDAP tests skipped (apt-get install slapd ldap-utils)`;
  if (process.env.IDSERVER_REQUIRE_SLAPD) throw new Error(message);
  console.warn(message);
  describe.skip(name, fn);
}

/** An `ldap` component representation for this directory (READ_ONLY unless `config` says otherwise). */
export function ldapComponent(slapd: Pick<TestSlapd, 'url'>, realmId: string, config: Record<string, string> = {}) {
  const base: Record<string, string> = {
    enabled: 'true',
    vendor: 'other',
    editMode: 'READ_ONLY',
    importEnabled: 'true',
    connectionUrl: slapd.url,
    bindDn: ROOT_DN,
    bindCredential: ROOT_PW,
    usersDn: PEOPLE_DN,
    usernameLDAPAttribute: 'uid',
    rdnLDAPAttribute: 'uid',
    uuidLDAPAttribute: 'entryUUID',
    userObjectClasses: 'inetOrgPerson, organizationalPerson',
    searchScope: '1',
    authType: 'simple',
    pagination: 'true',
    connectionTimeout: '3000',
    readTimeout: '5000',
  };
  return {
    name: 'ldap',
    providerId: 'ldap',
    providerType: 'org.keycloak.storage.UserStorageProvider',
    parentId: realmId,
    config: Object.fromEntries(Object.entries({ ...base, ...config }).map(([k, v]) => [k, [v]])),
  };
}

/** A person's entry in the test directory (`sn`, `cn`, `mail`), or undefined when there is none. */
export async function personEntry(slapd: Pick<TestSlapd, 'admin'>, uid: string) {
  const c = await slapd.admin();
  try {
    return (await c.search(`uid=${uid},${PEOPLE_DN}`, { scope: 'base', attributes: ['sn', 'cn', 'mail'] })).searchEntries[0];
  } catch (e) {
    if (e instanceof NoSuchObjectError) return undefined;
    throw e;
  } finally {
    await c.unbind();
  }
}

/** Whether the directory accepts this person's password (a simple bind). */
export async function personCanBind(slapd: Pick<TestSlapd, 'url'>, uid: string, password: string): Promise<boolean> {
  const u = new Client({ url: slapd.url });
  try {
    await u.bind(`uid=${uid},${PEOPLE_DN}`, password);
    return true;
  } catch {
    return false;
  } finally {
    await u.unbind();
  }
}
