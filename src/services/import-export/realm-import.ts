import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import { conflict, errorA, errorC } from '../../core/errors';
import type { RequestContext } from '../../core/context';
import { setDefaultGroupsByPath } from '../groups/group-paths';
import { addComposites } from '../roles/role-composites';
import type { RoleComposites } from '../roles/roles';
import { createIdentityProvider } from '../identity-providers/identity-providers';
import { createIdentityProviderMapper } from '../identity-providers/idp-mappers';
import { importAuthentication, withImportedFlowIds } from '../authentication/import';
import { importClientPolicies } from '../clients/client-policies';
import { importLocalizationTexts } from '../realms/localization';
import {
  asImportError,
  ensureRealmAdminRoles,
  importClientScopes,
  importClients,
  importScopeMappings,
  quietRealm,
} from './realm-import-clients';
import { importComponents } from './realm-import-components';
import { importAuthorization } from './realm-import-authz';
import { importGroupTrees, importServiceAccountRoles, importUsers } from './import-bulk';
import { loadRoleIndex } from './import-refs';
import { keepable, rekeyAuthenticatorConfigs, rekeyRoles, takenIds } from './import-ids';
import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { insertChunked } from '../../db/bulk-insert';
import { invalidate } from '../../loaders/invalidate';
import { roleAttributesFrom } from '../../representations/role';
import type { RealmRepresentation, RolesRep } from '../../representations/realm';
import type { GroupRep } from '../../representations/group';
import type { RoleRep } from '../../representations/role';
import type { UserRep } from '../../representations/user';
import type { IdentityProviderRep, IdpMapperRep } from '../../representations/identity-provider';
import { importOrganizations } from '../organizations/organization-import-export';

/**
 * The nested parts of a realm representation on import (POST /admin/realms): realm and client
 * roles with composites, the group tree with its role mappings, default groups, and users with
 * credentials, role mappings and groups. Runs inside the realm-creation transaction with a system
 * context, so a failure leaves nothing behind. Roles, identity providers and the like go through
 * the service functions the API uses; groups and users, the bulk of a large realm, are checked as
 * their single creates check them and written in bulk (import-bulk.ts), so their statement count
 * does not grow with their number. Client scopes, clients, scope mappings and components are
 * imported by realm-import-clients.ts and realm-import-components.ts, in Keycloak's order.
 */
/** The object entries of a representation's list (an import body is not checked entry by entry). */
const list = <T extends object>(v: unknown): T[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as T[]) : []);

async function clientIdsByClientId(ctx: RequestContext, realm: RealmModel): Promise<Map<string, string>> {
  const clients = await ctx.db.models.Client.findAll({ where: { realmId: realm.id }, attributes: ['id', 'clientId'] });
  return new Map(clients.map((c) => [c.clientId, c.id]));
}

const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * `roles.realm` and `roles.client` (by clientId): new roles are written at once under the file's ids;
 * those the realm was set up with (offline_access, the default role, ...) take the file's id,
 * description and attributes. Then the composites: a role of the file that says what it is made of
 * (`composite`, `composites`) is made of exactly that, whatever the set-up gave it.
 */
async function importRoles(ctx: RequestContext, realm: RealmModel, roles: RolesRep): Promise<void> {
  const m = ctx.db.models;
  const clients = await clientIdsByClientId(ctx, realm);
  const entries: Array<{ clientUuid?: string; rep: RoleRep }> = list<RoleRep>(roles.realm).map((rep) => ({ rep }));
  const clientRoles = roles.client && typeof roles.client === 'object' && !Array.isArray(roles.client) ? roles.client : {};
  for (const [clientId, reps] of Object.entries(clientRoles)) {
    const uuid = clients.get(clientId);
    if (!uuid) throw errorA(400, `Can not import client roles for nonexistent client named ${clientId}`);
    for (const rep of list<RoleRep>(reps)) entries.push({ clientUuid: uuid, rep });
  }
  const named = entries.filter((e) => typeof e.rep.name === 'string');
  for (const { rep } of named) if (!String(rep.name).trim()) throw errorC(400, 'role has no name');
  const existing = new Map<string, RoleModel>(
    (await m.Role.findAll({ where: { realmId: realm.id } })).map((r) => [`${r.containerId}/${r.name}`, r]),
  );
  const taken = await takenIds(
    ctx,
    'Role',
    named.map((e) => e.rep.id),
  );
  const rows: Array<Record<string, unknown>> = [];
  const rekeys: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const { clientUuid, rep } of named) {
    const key = `${clientUuid ?? realm.id}/${rep.name}`;
    if (seen.has(key)) throw conflict(`Role with name ${rep.name} already exists`);
    seen.add(key);
    const wanted = keepable(rep.id, taken) ? rep.id : undefined;
    if (wanted) taken.add(wanted);
    const role = existing.get(key);
    const description = typeof rep.description === 'string' ? rep.description : null;
    const attributes = roleAttributesFrom(rep.attributes);
    if (!role) {
      rows.push({
        id: wanted ?? randomUUID(),
        realmId: realm.id,
        clientId: clientUuid ?? null,
        containerId: clientUuid ?? realm.id,
        name: rep.name,
        description,
        attributes,
      });
      continue;
    }
    if (role.description !== description || JSON.stringify(role.attributes ?? {}) !== JSON.stringify(attributes))
      await m.Role.update({ description, attributes }, { where: { id: role.id } });
    if (wanted) rekeys.push([role.id, wanted]);
  }
  await insertChunked(m.Role, rows);
  await rekeyRoles(ctx, realm, rekeys);
  // The set-up's composites of a role the file describes give way to the file's.
  const described = named.filter(
    (e) => existing.has(`${e.clientUuid ?? realm.id}/${e.rep.name}`) && ('composite' in e.rep || 'composites' in e.rep),
  );
  if (described.length) {
    const ids = (
      await m.Role.findAll({
        where: { realmId: realm.id, name: { [Op.in]: [...new Set(described.map((e) => String(e.rep.name)))] } },
        attributes: ['id', 'name', 'containerId'],
      })
    )
      .filter((r) => described.some((e) => e.rep.name === r.name && (e.clientUuid ?? realm.id) === r.containerId))
      .map((r) => r.id);
    await m.CompositeRole.destroy({ where: { compositeId: { [Op.in]: ids } } });
  }
  invalidate.everything(ctx.loaders);
  await addImportedComposites(ctx, realm, named);
}

/**
 * Composites of imported roles, once every role of the import exists: children are found by name
 * in one read of the realm's roles (an unknown one is a 400), not with a look-up per role.
 */
export async function addImportedComposites(
  ctx: RequestContext,
  realm: RealmModel,
  roles: Array<{ clientUuid?: string; rep: { name?: unknown; composites?: unknown } }>,
): Promise<void> {
  const withComposites = roles.filter((r) => r.rep.composites && typeof r.rep.composites === 'object');
  if (!withComposites.length) return;
  const index = await loadRoleIndex(ctx, realm);
  for (const { clientUuid, rep } of withComposites) {
    const c = rep.composites as RoleComposites;
    const children = index.ids(names(c.realm), c.client ?? c.application);
    if (children.length)
      await addComposites(
        ctx,
        realm,
        { name: String(rep.name), clientUuid },
        children.map((id) => ({ id })),
      );
  }
}

/** Imports roles, groups, default groups and users of a realm representation into a new realm. */
export async function importRealmContent(ctx: RequestContext, realm: RealmModel, body: RealmRepresentation): Promise<void> {
  await importClientPolicies(ctx, realm, body);
  await importLocalizationTexts(ctx, realm, body.localizationTexts);
  const flowIds = await importAuthentication(ctx, realm, body);
  await rekeyAuthenticatorConfigs(ctx, realm, body.authenticatorConfig);
  const rep: RealmRepresentation = Array.isArray(body.clients)
    ? { ...body, clients: withImportedFlowIds(list(body.clients), flowIds) }
    : body;
  const quiet = quietRealm(realm);
  await asImportError(async () => {
    await importClientScopes(ctx, quiet, rep);
    await importClients(ctx, quiet, rep);
  });
  if (rep.roles && typeof rep.roles === 'object') await importRoles(ctx, realm, rep.roles);
  await asImportError(async () => {
    await ensureRealmAdminRoles(ctx, quiet, rep);
    await importScopeMappings(ctx, quiet, rep);
  });
  await importGroupTrees(ctx, realm, list<GroupRep>(rep.groups));
  if (Array.isArray(rep.defaultGroups)) await setDefaultGroupsByPath(ctx, realm, names(rep.defaultGroups));
  await asImportError(() => importComponents(ctx, quiet, rep));
  for (const p of list<IdentityProviderRep>(rep.identityProviders)) await createIdentityProvider(ctx, realm, p);
  for (const m of list<IdpMapperRep>(rep.identityProviderMappers)) await createIdentityProviderMapper(ctx, realm, m);
  const users = list<UserRep>(rep.users);
  // Service-account users came with their clients (serviceAccountsEnabled); they get the representation's roles.
  await importServiceAccountRoles(
    ctx,
    realm,
    users.filter((x) => x.serviceAccountClientId),
  );
  await importUsers(
    ctx,
    realm,
    users.filter((x) => !x.serviceAccountClientId),
  );
  await importOrganizations(ctx, realm, rep.organizations);
  // Last, as Keycloak's importRealmAuthorizationSettings: policies and resource owners name roles, groups and users.
  await asImportError(() => importAuthorization(ctx, quiet, rep.clients));
}
