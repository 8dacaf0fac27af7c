import { Op } from 'sequelize';
import type { RealmModel } from '../../db/models/realm';
import { errorA } from '../../core/errors';
import type { RequestContext } from '../../core/context';
import { addSubGroup, createTopLevelGroup } from '../groups/groups';
import { findGroup } from '../groups/group-queries';
import { setDefaultGroupsByPath } from '../groups/group-paths';
import { addComposites } from '../roles/role-composites';
import { type MappingOwner, addRoleMappingsTo, resolveMappingOwner } from '../roles/role-mappings';
import { createRole, type RoleComposites } from '../roles/roles';
import { importConsents } from '../users/consents';
import { importFederatedIdentities } from '../users/federated-identities';
import { createIdentityProvider } from '../identity-providers/identity-providers';
import { createIdentityProviderMapper } from '../identity-providers/idp-mappers';
import { createUser } from '../users/users';
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
  serviceAccountUserId,
} from './realm-import-clients';
import { importComponents } from './realm-import-components';
import type { RealmRepresentation, RolesRep } from '../../representations/realm';
import type { GroupRep } from '../../representations/group';
import type { RoleRep } from '../../representations/role';
import type { UserRep } from '../../representations/user';
import type { IdentityProviderRep, IdpMapperRep } from '../../representations/identity-provider';

/**
 * The nested parts of a realm representation on import (POST /admin/realms): realm and client
 * roles with composites, the group tree with its role mappings, default groups, and users with
 * credentials, role mappings and groups. Runs inside the realm-creation transaction with a system
 * context, through the same service functions the API uses, so the same rules apply and a failure
 * leaves nothing behind. Client scopes, clients, scope mappings and components are imported by
 * realm-import-clients.ts and realm-import-components.ts, in Keycloak's order.
 */
/** The object entries of a representation's list (an import body is not checked entry by entry). */
const list = <T extends object>(v: unknown): T[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as T[]) : []);
/** The role names a user or group representation maps (`realmRoles`, `clientRoles` by clientId). */
type RoleNames = Pick<UserRep, 'realmRoles' | 'clientRoles'>;

async function clientIdsByClientId(ctx: RequestContext, realm: RealmModel): Promise<Map<string, string>> {
  const clients = await ctx.db.models.Client.findAll({ where: { realmId: realm.id }, attributes: ['id', 'clientId'] });
  return new Map(clients.map((c) => [c.clientId, c.id]));
}

/** Role ids for names: realm role names and `{clientId: [names]}`; unknown names are a 400. */
export async function roleIdsByNames(ctx: RequestContext, realm: RealmModel, realmNames: string[], clientNames: Record<string, string[]>) {
  const clients = await clientIdsByClientId(ctx, realm);
  const ids: Array<{ id: string; name: string }> = [];
  const find = async (containerId: string, names: string[], what: string) => {
    if (!names.length) return;
    const rows = await ctx.db.models.Role.findAll({ where: { containerId, name: { [Op.in]: names } }, attributes: ['id', 'name'] });
    for (const n of names) {
      const r = rows.find((x) => x.name === n);
      if (!r) throw errorA(400, `${what} ${n} does not exist`);
      ids.push({ id: r.id, name: r.name });
    }
  };
  await find(realm.id, realmNames, 'Realm role');
  for (const [clientId, names] of Object.entries(clientNames)) {
    const uuid = clients.get(clientId);
    if (!uuid) throw errorA(400, `Client ${clientId} does not exist`);
    await find(uuid, names, `Client role of ${clientId}`);
  }
  return ids;
}

const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const nameMap = (v: unknown): Record<string, string[]> =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, names(x)])) : {};

async function importRoles(ctx: RequestContext, realm: RealmModel, roles: RolesRep): Promise<void> {
  const clients = await clientIdsByClientId(ctx, realm);
  const created: Array<{ clientUuid?: string; rep: RoleRep }> = [];
  const existing = new Set(
    (await ctx.db.models.Role.findAll({ where: { realmId: realm.id }, attributes: ['containerId', 'name'] })).map(
      (r) => `${r.containerId}/${r.name}`,
    ),
  );
  const add = async (clientUuid: string | undefined, rep: RoleRep) => {
    if (typeof rep.name !== 'string') return;
    if (!existing.has(`${clientUuid ?? realm.id}/${rep.name}`)) {
      await createRole(ctx, realm, clientUuid, {
        name: rep.name,
        description: rep.description,
        attributes: rep.attributes,
      });
    }
    created.push({ clientUuid, rep });
  };
  for (const r of list<RoleRep>(roles.realm)) await add(undefined, r);
  const clientRoles = roles.client && typeof roles.client === 'object' && !Array.isArray(roles.client) ? roles.client : {};
  for (const [clientId, reps] of Object.entries(clientRoles)) {
    const uuid = clients.get(clientId);
    if (!uuid) throw errorA(400, `Can not import client roles for nonexistent client named ${clientId}`);
    for (const r of list<RoleRep>(reps)) await add(uuid, r);
  }
  for (const { clientUuid, rep } of created) {
    const c = rep.composites as RoleComposites | undefined;
    if (!c) continue;
    const children = await roleIdsByNames(ctx, realm, names(c.realm), nameMap(c.client ?? c.application));
    await addComposites(ctx, realm, { name: rep.name as string, clientUuid }, children);
  }
}

export async function mapRoles(
  ctx: RequestContext,
  realm: RealmModel,
  type: 'users' | 'groups',
  ownerId: string,
  rep: RoleNames,
): Promise<void> {
  let owner: MappingOwner | undefined;
  const ownerOnce = async () => (owner ??= await resolveMappingOwner(ctx, realm, type, ownerId));
  const realmRoles = await roleIdsByNames(ctx, realm, names(rep.realmRoles), {});
  if (realmRoles.length) await addRoleMappingsTo(ctx, realm, await ownerOnce(), undefined, realmRoles);
  const clients = await clientIdsByClientId(ctx, realm);
  for (const [clientId, roleNames] of Object.entries(nameMap(rep.clientRoles))) {
    const roles = await roleIdsByNames(ctx, realm, [], { [clientId]: roleNames });
    if (roles.length) await addRoleMappingsTo(ctx, realm, await ownerOnce(), clients.get(clientId), roles);
  }
}

export async function importGroup(ctx: RequestContext, realm: RealmModel, rep: GroupRep, parentId?: string): Promise<string> {
  const body = { name: rep.name, description: rep.description, attributes: rep.attributes };
  const { id } = parentId
    ? await addSubGroup(ctx, realm, await findGroup(ctx, realm, parentId), body)
    : await createTopLevelGroup(ctx, realm, body);
  await mapRoles(ctx, realm, 'groups', id, rep);
  for (const child of list<GroupRep>(rep.subGroups)) await importGroup(ctx, realm, child, id);
  return id;
}

/** Imports roles, groups, default groups and users of a realm representation into a new realm. */
export async function importRealmContent(ctx: RequestContext, realm: RealmModel, body: RealmRepresentation): Promise<void> {
  await importClientPolicies(ctx, realm, body);
  await importLocalizationTexts(ctx, realm, body.localizationTexts);
  const flowIds = await importAuthentication(ctx, realm, body);
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
  for (const g of list<GroupRep>(rep.groups)) await importGroup(ctx, realm, g);
  if (Array.isArray(rep.defaultGroups)) await setDefaultGroupsByPath(ctx, realm, names(rep.defaultGroups));
  await asImportError(() => importComponents(ctx, quiet, rep));
  for (const p of list<IdentityProviderRep>(rep.identityProviders)) await createIdentityProvider(ctx, realm, p);
  for (const m of list<IdpMapperRep>(rep.identityProviderMappers)) await createIdentityProviderMapper(ctx, realm, m);
  for (const u of list<UserRep>(rep.users)) {
    if (u.serviceAccountClientId) {
      // The service-account user came with its client (serviceAccountsEnabled); it gets the representation's roles.
      const saId = await serviceAccountUserId(ctx, realm, String(u.serviceAccountClientId));
      if (saId) await mapRoles(ctx, realm, 'users', saId, u);
      continue;
    }
    const userRep: UserRep = { ...u };
    for (const k of ['realmRoles', 'clientRoles', 'clientConsents', 'federatedIdentities'] as const) delete userRep[k];
    const id = await createUser(ctx, realm, userRep, { imported: true });
    await mapRoles(ctx, realm, 'users', id, u);
    await importFederatedIdentities(ctx, realm, id, u.federatedIdentities);
    await importConsents(ctx, realm, id, u.clientConsents);
  }
}
