import { Op } from 'sequelize';
import { requireCap } from '../../auth/permissions';
import { derivedContext, type RequestContext } from '../../core/context';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { GroupRep } from '../../representations/group';
import type { ComponentExportRep, RealmRepresentation, RolesRep } from '../../representations/realm';
import type { RequiredActionRep } from '../../representations/required-action';
import { requiredActionOrder, toRequiredActionRepresentation } from '../../representations/required-action';
import type { RoleRep } from '../../representations/role';
import { toRoleRepresentation } from '../../representations/role';
import type { Representation } from '../../representations/schema';
import type { UserRep } from '../../representations/user';
import { exportAuthentication } from '../authentication/common';
import { listClientScopes, listRealmDefaultScopes } from '../client-scopes/client-scopes';
import { clientRepresentations } from '../clients/clients';
import { groupRepresentations } from '../groups/group-queries';
import { listIdentityProviders } from '../identity-providers/identity-providers';
import { allTexts } from '../realms/localization';
import { realmRepresentation } from '../realms/realm-representation';
import { renderUsers } from '../users/users';
import { addExportedRoleNames, exportScopeMappings } from './realm-import-clients';
import { exportAuthorization } from './realm-import-authz';
import { exportOrganizations } from '../organizations/organization-import-export';

/**
 * POST /{realm}/partial-export (core reference §3.14): the realm representation for export with
 * client scopes, default scope lists, required actions, components, identity providers and
 * localization texts; with `exportGroupsAndRoles` the realm roles and the group tree; with
 * `exportClients` the clients and their service-account users; client roles when both. Secrets
 * (client and IdP secrets, SMTP password, key material) are masked as `**********`; no regular
 * user is exported.
 */
const MASK = '**********';
const SECRET_CONFIG = new Set(['privateKey', 'secret', 'keystorePassword', 'keyPassword', 'bindCredential', 'clientSecret', 'password']);

export interface ExportOptions {
  exportClients?: boolean;
  exportGroupsAndRoles?: boolean;
  /** Secrets in clear, as Keycloak's full export (`kc.sh export`) writes them; never over HTTP. */
  exportSecrets?: boolean;
}

/** A config map (free-form: a component's lists, an identity provider's or the SMTP server's strings) with secret keys masked. */
const maskConfig = (config: object) =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [k, SECRET_CONFIG.has(k) ? (Array.isArray(v) ? v.map(() => MASK) : MASK) : v]));

/** Components grouped by provider type (ComponentExportRepresentation), secrets masked. */
async function components(ctx: RequestContext, realm: RealmModel, mask = maskConfig): Promise<Record<string, ComponentExportRep[]>> {
  const rows = await ctx.db.models.Component.findAll({ where: { realmId: realm.id }, order: [['name', 'ASC']] });
  const out: Record<string, ComponentExportRep[]> = {};
  for (const c of rows) {
    const rep: ComponentExportRep = { id: c.id, name: c.name, providerId: c.providerId };
    if (c.subType) rep.subType = c.subType;
    rep.subComponents = {};
    rep.config = mask(c.config ?? {});
    out[c.providerType] ??= [];
    out[c.providerType].push(rep);
  }
  return out;
}

async function requiredActions(ctx: RequestContext, realm: RealmModel): Promise<RequiredActionRep[]> {
  const rows = await ctx.db.models.RequiredAction.findAll({ where: { realmId: realm.id } });
  return rows.sort(requiredActionOrder).map(toRequiredActionRepresentation);
}

/** Roles with `composites` by name (`{realm: [...], client: {clientId: [...]}}`), two queries for all. */
async function roleReps(ctx: RequestContext, roles: RoleModel[], clientIds: Map<string, string>): Promise<RoleRep[]> {
  if (!roles.length) return [];
  const links = await ctx.db.models.CompositeRole.findAll({ where: { compositeId: { [Op.in]: roles.map((r) => r.id) } } });
  const childIds = [...new Set(links.map((l) => l.childId))];
  const children = childIds.length ? await ctx.db.models.Role.findAll({ where: { id: { [Op.in]: childIds } } }) : [];
  const byId = new Map(children.map((c) => [c.id, c]));
  return roles.map((r) => {
    const rep = toRoleRepresentation(
      r,
      links.some((l) => l.compositeId === r.id),
      false,
    );
    const mine = links.filter((l) => l.compositeId === r.id).map((l) => byId.get(l.childId));
    if (mine.length) {
      const realmNames = mine.filter((c) => c && !c.clientId).map((c) => c?.name as string);
      const client: Record<string, string[]> = {};
      for (const c of mine) {
        if (!c?.clientId) continue;
        const key = clientIds.get(c.clientId) ?? c.clientId;
        client[key] = [...(client[key] ?? []), c.name];
      }
      rep.composites = { ...(realmNames.length ? { realm: realmNames.sort() } : {}), ...(Object.keys(client).length ? { client } : {}) };
    }
    return rep;
  });
}

/** The group tree with attributes and role mappings (top-level groups sorted by name, children nested). */
async function groupTree(ctx: RequestContext, realm: RealmModel): Promise<GroupRep[]> {
  const groups = await ctx.db.models.Group.findAll({ where: { realmId: realm.id, organizationId: null }, order: [['name', 'ASC']] });
  const reps = await groupRepresentations(ctx, realm, groups, { brief: false });
  const byId = new Map(reps.map((r, i) => [groups[i].id, { ...r, subGroups: [] as GroupRep[] }]));
  const top: GroupRep[] = [];
  for (const g of groups) {
    const rep = byId.get(g.id) as GroupRep & { subGroups: GroupRep[] };
    delete rep.access;
    delete rep.subGroupCount;
    const parent = byId.get(g.parentId);
    if (parent) parent.subGroups.push(rep);
    else top.push(rep);
  }
  return top;
}

/** POST /{realm}/partial-export (manage-realm; clients view with exportClients, users view with exportGroupsAndRoles). */
export async function partialExport(ctx: RequestContext, realm: RealmModel, opts: ExportOptions = {}): Promise<RealmRepresentation> {
  await requireCap(ctx, realm, 'manageRealm');
  if (opts.exportClients) await requireCap(ctx, realm, 'viewClients');
  if (opts.exportGroupsAndRoles) await requireCap(ctx, realm, 'viewUsers');
  const sys: RequestContext = derivedContext(ctx, { actor: null, memo: new Map() });
  const m = ctx.db.models;
  const out = await realmRepresentation(sys, realm);
  const mask = opts.exportSecrets ? (config: object) => ({ ...config }) : maskConfig;
  if (out.smtpServer && typeof out.smtpServer === 'object') out.smtpServer = mask(out.smtpServer);
  out.clientScopes = await listClientScopes(sys, realm);
  out.defaultDefaultClientScopes = (await listRealmDefaultScopes(sys, realm, 'default')).map((s) => s.name as string);
  out.defaultOptionalClientScopes = (await listRealmDefaultScopes(sys, realm, 'optional')).map((s) => s.name as string);
  out.identityProviders = (await listIdentityProviders(sys, realm, { max: -1 })).map((p) => ({
    ...p,
    config: mask(p.config ?? {}),
  }));
  out.components = await components(sys, realm, mask);
  const organizations = await exportOrganizations(sys, realm);
  if (organizations) out.organizations = organizations;
  out.requiredActions = await requiredActions(sys, realm);
  Object.assign(out, await exportAuthentication(sys, realm));
  out.localizationTexts = await allTexts(sys, realm);
  Object.assign(out, await exportScopeMappings(sys, realm, Boolean(opts.exportClients)));
  const clients = await m.Client.findAll({ where: { realmId: realm.id }, order: [['clientId', 'ASC']] });
  const clientIds = new Map(clients.map((c) => [c.id, c.clientId]));
  if (opts.exportGroupsAndRoles) {
    const roles: RolesRep = {
      realm: await roleReps(
        sys,
        await m.Role.findAll({ where: { realmId: realm.id, clientId: null }, order: [['name', 'ASC']] }),
        clientIds,
      ),
    };
    if (opts.exportClients) {
      const clientRoles = await m.Role.findAll({ where: { realmId: realm.id, clientId: { [Op.ne]: null } }, order: [['name', 'ASC']] });
      const reps = await roleReps(sys, clientRoles, clientIds);
      const byClient: Record<string, RoleRep[]> = {};
      for (const c of clients) byClient[c.clientId] = [];
      for (const [i, r] of clientRoles.entries()) byClient[clientIds.get(r.clientId as string) as string]?.push(reps[i]);
      roles.client = byClient;
    }
    out.roles = roles;
    out.groups = await groupTree(sys, realm);
  }
  if (opts.exportClients) {
    const authz = await exportAuthorization(sys, realm, clients);
    out.clients = (await clientRepresentations(sys, realm, clients)).map((c, i) => {
      const rep: Representation<'ClientRepresentation'> = { ...c };
      delete rep.access;
      const settings = authz.get(clients[i].id);
      if (settings) rep.authorizationSettings = settings;
      if (rep.secret && !opts.exportSecrets) rep.secret = MASK;
      if (rep.registrationAccessToken && !opts.exportSecrets) rep.registrationAccessToken = MASK;
      return rep;
    });
    const accounts = await m.User.findAll({
      where: { realmId: realm.id, serviceAccountClientLink: { [Op.ne]: null } },
      order: [['username', 'ASC']],
    });
    out.users = (await renderUsers(sys, realm, accounts)).map((u) => {
      const rep: UserRep = { ...u };
      delete rep.access;
      const link = accounts.find((a) => a.id === u.id)?.serviceAccountClientLink;
      if (link) rep.serviceAccountClientId = clientIds.get(link);
      return rep;
    });
    await addExportedRoleNames(sys, out.users);
  }
  return out;
}
