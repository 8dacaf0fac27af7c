import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { hashPassword } from '../../src/auth/passwords';
import type { AdminApi, TestServer } from './server';

/**
 * Test fixtures for realm-local users: a user with email, names and a password (so the password
 * grant accepts them in a non-master realm) holding the named `realm-management` client roles.
 * Inserted through the models, so suites can set up callers before the endpoint under test exists.
 */
export interface RealmUserOptions {
  roles?: string[];
  password?: string;
  email?: string;
  emailVerified?: boolean;
}

export async function createRealmUser(ts: TestServer, realm: string, username: string, opts: RealmUserOptions = {}): Promise<string> {
  const m = ts.db.models;
  const r = await m.Realm.findOne({ where: { name: realm } });
  if (!r) throw new Error(`no realm ${realm}`);
  const id = randomUUID();
  const email = opts.email ?? `${username}@example.org`;
  await m.User.create({
    id,
    realmId: r.id,
    username,
    email,
    emailConstraint: email,
    firstName: 'F',
    lastName: 'L',
    enabled: true,
    emailVerified: opts.emailVerified ?? false,
    createdTimestamp: Date.now(),
    notBefore: 0,
  });
  await m.Credential.create({
    id: randomUUID(),
    userId: id,
    type: 'password',
    userLabel: null,
    ...(await hashPassword(opts.password ?? 'pw')),
    priority: 10,
    createdDate: Date.now(),
  });
  const roles = opts.roles ?? [];
  if (roles.length) {
    const client = await m.Client.findOne({ where: { realmId: r.id, clientId: 'realm-management' } });
    const found = await m.Role.findAll({ where: { clientId: client?.id, name: { [Op.in]: roles } } });
    if (found.length !== roles.length) throw new Error(`unknown realm-management role in ${roles.join(', ')}`);
    await m.UserRoleMapping.bulkCreate(found.map((role) => ({ userId: id, roleId: role.id })));
  }
  return id;
}

/** A realm user holding the named `realm-management` roles, logged in through admin-cli. */
export async function realmAdminApi(ts: TestServer, realm: string, username: string, roles: string[], password = 'pw'): Promise<AdminApi> {
  await createRealmUser(ts, realm, username, { roles, password });
  return ts.api({ realm, username, password });
}
