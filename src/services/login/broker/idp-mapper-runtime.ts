import { randomUUID } from 'node:crypto';
import type { Db } from '../../../db';
import type { IdentityProviderModel, IdpMapperModel } from '../../../db/models/identity-provider';
import type { RealmModel } from '../../../db/models/realm';
import type { UserModel } from '../../../db/models/user';
import { emailConstraintOf } from '../../users/users';
import { roleIdOf } from '../authenticators';
import type { BrokeredIdentity } from './brokered-identity';

/**
 * Identity provider mappers at login (Keycloak's IdentityProviderMapper importNewUser and
 * updateBrokeredUser): on the first login every mapper runs; on later logins a mapper runs by its
 * sync mode (its `syncMode`, INHERIT = the provider's, LEGACY when unset): IMPORT never again,
 * FORCE and LEGACY each time (a claim-to-role mapper then also revokes its role when the claim no
 * longer matches, and an attribute importer removes the attribute when the claim is gone).
 * Implemented: hardcoded-attribute-idp-mapper, oidc-hardcoded-role-idp-mapper,
 * oidc-user-attribute-idp-mapper, oidc-role-idp-mapper. Others are ignored.
 */
type Mode = 'import' | 'update';

/** A claim by Keycloak's path syntax: dots descend into objects, `\.` is a literal dot. */
export function claimValue(claims: Record<string, unknown>, path: string | undefined): unknown {
  if (!path) return undefined;
  const parts = path.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
  let cur: unknown = claims;
  for (const part of parts) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const valuesOf = (v: unknown): string[] =>
  v === undefined || v === null ? [] : (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x)));

const syncModeOf = (idp: IdentityProviderModel, m: IdpMapperModel) => {
  const own = m.config.syncMode;
  return own && own !== 'INHERIT' ? own : (idp.config.syncMode ?? 'LEGACY');
};

const ROOT: Record<string, 'email' | 'firstName' | 'lastName'> = { email: 'email', firstName: 'firstName', lastName: 'lastName' };

async function setAttribute(db: Db, realm: RealmModel, user: UserModel, name: string | undefined, values: string[]): Promise<void> {
  if (!name) return;
  const root = ROOT[name];
  if (root) {
    const v = values[0] ?? null;
    if ((user[root] ?? null) === v) return;
    if (root === 'email') {
      const email = v?.toLowerCase() ?? null;
      user.set({ email, emailConstraint: emailConstraintOf(realm, user.id, email) });
    } else user.set(root, v);
    await user.save();
    return;
  }
  await db.models.UserAttribute.destroy({ where: { userId: user.id, name } });
  if (values.length) await db.models.UserAttribute.bulkCreate(values.map((value) => ({ id: randomUUID(), userId: user.id, name, value })));
}

async function setRole(db: Db, realm: RealmModel, user: UserModel, role: string | undefined, grant: boolean): Promise<void> {
  const roleId = role ? await roleIdOf({ db, realm }, role) : undefined;
  if (!roleId) return;
  if (grant) await db.models.UserRoleMapping.bulkCreate([{ userId: user.id, roleId }], { ignoreDuplicates: true });
  else await db.models.UserRoleMapping.destroy({ where: { userId: user.id, roleId } });
}

function claimMatches(identity: BrokeredIdentity, c: Record<string, string>): boolean {
  const v = claimValue(identity.claims, c.claim);
  return valuesOf(v).includes(c['claim.value'] ?? '');
}

async function runOne(db: Db, realm: RealmModel, user: UserModel, m: IdpMapperModel, identity: BrokeredIdentity, mode: Mode, sync: string) {
  const c = m.config;
  switch (m.mapperType) {
    case 'hardcoded-attribute-idp-mapper':
      if (mode === 'import' || sync === 'FORCE')
        await setAttribute(db, realm, user, c.attribute, c['attribute.value'] ? [c['attribute.value']] : []);
      return;
    case 'oidc-hardcoded-role-idp-mapper':
      await setRole(db, realm, user, c.role, true);
      return;
    case 'oidc-user-attribute-idp-mapper': {
      const values = valuesOf(claimValue(identity.claims, c.claim));
      if (mode === 'import' && !values.length) return;
      await setAttribute(db, realm, user, c['user.attribute'], values);
      return;
    }
    case 'oidc-role-idp-mapper': {
      const applies = claimMatches(identity, c);
      if (mode === 'import' && !applies) return;
      await setRole(db, realm, user, c.role, applies);
      return;
    }
  }
}

/** Runs the provider's mappers for a user who just logged in through it (the first time: `import`). */
export async function applyIdpMappers(
  db: Db,
  realm: RealmModel,
  idp: IdentityProviderModel,
  user: UserModel,
  identity: BrokeredIdentity,
  mode: Mode,
): Promise<void> {
  const mappers = await db.models.IdpMapper.findAll({ where: { identityProviderId: idp.internalId }, order: [['name', 'ASC']] });
  for (const m of mappers) {
    const sync = syncModeOf(idp, m);
    if (mode === 'update' && sync === 'IMPORT') continue;
    await runOne(db, realm, user, m, identity, mode, sync);
  }
}
