import type { RealmModel } from '../../db/models/realm';
import { errorA } from '../../core/errors';
import type { RequestContext } from '../../core/context';
import { setDefaultGroupsByPath } from '../groups/group-paths';
import { addComposites } from '../roles/role-composites';
import { createRole, type RoleComposites } from '../roles/roles';
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
import { importGroupTrees, importServiceAccountRoles, importUsers } from './import-bulk';
import { loadRoleIndex } from './import-refs';
import type { RealmRepresentation, RolesRep } from '../../representations/realm';
import type { GroupRep } from '../../representations/group';
import type { RoleRep } from '../../representations/role';
import type { UserRep } from '../../representations/user';
import type { IdentityProviderRep, IdpMapperRep } from '../../representations/identity-provider';

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
  await addImportedComposites(ctx, realm, created);
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
}
