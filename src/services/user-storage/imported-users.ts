import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { LDAP_ENTRY_DN, LDAP_ID, type LdapUser, sameValues } from './ldap-mapping';
import { grantHardcodedToUser } from './hardcoded-mappers';
import { syncPasswordAction } from './msad';
import type { Provider } from './ldap-store';

/**
 * Local copies of directory users (Keycloak's import): a user row linked to its provider
 * (`federationLink`) with the LDAP_ID / LDAP_ENTRY_DN attributes and the mapped ones, the hardcoded
 * role and group mappers applied when it is created, and the refresh of a copy from its entry.
 */
const flag = (v: unknown) => v === true || v === 'true';

/** What makes an import fail: another user has the username or the email. */
export class ImportConflict extends Error {}

/** The user row's fields a directory entry gives, for a local copy (imported) or a transient user (ADR 46). */
export function userFieldsOf(p: Provider, u: LdapUser) {
  return {
    username: u.username,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    enabled: u.enabled ?? true,
    emailVerified: u.emailVerified ?? (p.cfg.trustEmail && Boolean(u.email)),
    createdTimestamp: Date.now(),
    serviceAccountClientLink: null,
    federationLink: p.cfg.id,
    notBefore: 0,
  };
}

const attributeRows = (userId: string, attrs: Record<string, string[]>) =>
  Object.entries(attrs).flatMap(([name, vals]) => vals.map((value) => ({ id: randomUUID(), userId, name, value })));

/** Creates the local copy of a directory user (inside the caller's transaction). */
export async function importUser(db: Db, realm: RealmModel, p: Provider, u: LdapUser): Promise<UserModel> {
  const m = db.models;
  const taken = await m.User.findOne({ where: { realmId: realm.id, username: u.username }, attributes: ['id'] });
  if (taken) throw new ImportConflict(`User with username '${u.username}' already exists`);
  const duplicates = flag(realm.settings.duplicateEmailsAllowed);
  if (u.email && !duplicates && (await m.User.count({ where: { realmId: realm.id, email: u.email } })))
    throw new ImportConflict(`User with email '${u.email}' already exists`);
  const id = randomUUID();
  const user = await m.User.create({
    id,
    realmId: realm.id,
    ...userFieldsOf(p, u),
    emailConstraint: u.email && !duplicates ? u.email : id,
  });
  const rows = attributeRows(id, u.attributes);
  if (rows.length) await m.UserAttribute.bulkCreate(rows);
  await grantHardcodedToUser(db, realm, p, id);
  await syncPasswordAction(db, p, id, u);
  return user;
}

/** Brings a local copy in line with its directory entry; true when something changed (inside the caller's transaction). */
export async function refreshUser(db: Db, p: Provider, user: UserModel, u: LdapUser): Promise<boolean> {
  const fields = { email: u.email, firstName: u.firstName, lastName: u.lastName } as const;
  const next: Partial<UserModel> = {};
  for (const [k, v] of Object.entries(fields)) if ((user as unknown as Record<string, unknown>)[k] !== v) Object.assign(next, { [k]: v });
  if (u.enabled !== undefined && u.enabled !== user.enabled) next.enabled = u.enabled;
  if (u.username !== user.username) next.username = u.username;
  if ('email' in next && user.emailConstraint !== user.id) next.emailConstraint = u.email ?? user.id;
  const m = db.models;
  const stored = await m.UserAttribute.findAll({ where: { userId: user.id, name: { [Op.in]: Object.keys(u.attributes) } } });
  const have = new Map<string, string[]>();
  for (const a of stored) have.set(a.name, [...(have.get(a.name) ?? []), a.value]);
  const changedAttrs = Object.entries(u.attributes).filter(([k, v]) => !sameValues(have.get(k), v));
  if (Object.keys(next).length) await m.User.update(next, { where: { id: user.id } });
  if (changedAttrs.length) {
    await m.UserAttribute.destroy({ where: { userId: user.id, name: { [Op.in]: changedAttrs.map(([k]) => k) } } });
    await m.UserAttribute.bulkCreate(attributeRows(user.id, Object.fromEntries(changedAttrs)));
  }
  if (Object.keys(next).length) Object.assign(user, next);
  await syncPasswordAction(db, p, user.id, u);
  return Object.keys(next).length > 0 || changedAttrs.length > 0;
}

/** The LDAP_ID and LDAP_ENTRY_DN of a local copy. */
export async function ldapLinkOf(db: Db, userId: string): Promise<{ uuid?: string; dn?: string }> {
  const rows = await db.models.UserAttribute.findAll({ where: { userId, name: { [Op.in]: [LDAP_ID, LDAP_ENTRY_DN] } } });
  return { uuid: rows.find((r) => r.name === LDAP_ID)?.value, dn: rows.find((r) => r.name === LDAP_ENTRY_DN)?.value };
}
