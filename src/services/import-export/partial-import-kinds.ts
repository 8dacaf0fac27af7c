import { Op } from 'sequelize';
import type { ResourceTypeName } from '../../keycloak/event-types';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { errorA } from '../../core/errors';
import { createClient, deleteClient } from '../clients/client-writes';
import type { RequestContext } from '../../core/context';
import { removeGroup } from '../groups/groups';
import { findGroup } from '../groups/group-queries';
import { createIdentityProvider, findIdentityProvider, removeIdentityProviderRows } from '../identity-providers/identity-providers';
import { createIdentityProviderMapper } from '../identity-providers/idp-mappers';
import { addImportedComposites } from './realm-import';
import { importGroupTrees, importUsers } from './import-bulk';
import { createRole, deleteRole } from '../roles/roles';
import { deleteUser, resolveUser } from '../users/users';

/**
 * The resource kinds of a partial import (core reference §3.13), in Keycloak's order: clients,
 * roles (realm and client), identity providers, groups, users. Each kind finds the existing
 * resources of the whole batch in bulk, and removes or creates one resource through the same
 * service functions the API uses. `ctx` is the elevated import context and `realm` a view of the
 * realm that records no admin events: the import records one event per result itself.
 */
export type Rep = Record<string, unknown>;
export type ResourceType = 'CLIENT' | 'REALM_ROLE' | 'CLIENT_ROLE' | 'IDP' | 'IDP_MAPPER' | 'GROUP' | 'USER';

export interface Item {
  rep: Rep;
  name: string;
  /** Existing resource's id (what remove needs), when the resource exists. */
  existingId?: string;
  /** Id reported for an existing resource (SKIPPED). */
  reportedId?: string;
}

export interface Kind {
  type: ResourceType;
  /** Items of the body, existing ones marked; throws for a precondition failure. */
  prepare(): Promise<Item[]>;
  existsMessage(item: Item): string;
  remove(item: Item): Promise<void>;
  /** Creates the resource; returns the id reported in the results. */
  create(item: Item): Promise<string>;
  /** Creates many at once, with a bounded number of statements (users, groups); returns the ids in order. */
  createAll?(items: Item[]): Promise<string[]>;
  /** Runs after every item of the kind is created (role composites). */
  finish?(): Promise<void>;
  /** Admin event resource type and path of a result. */
  event(id: string, item: Item): { resourceType: ResourceTypeName; resourcePath: string };
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const objects = (v: unknown): Rep[] =>
  Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object' && !Array.isArray(x)) as Rep[]) : [];
const without = (rep: Rep, ...keys: string[]): Rep => Object.fromEntries(Object.entries(rep).filter(([k]) => !keys.includes(k)));

/** Clients Keycloak never imports partially (Constants.defaultClients). */
const INTERNAL_CLIENTS = new Set(['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console']);

async function clientsByClientId(ctx: RequestContext, realm: RealmModel, clientIds: string[]) {
  if (!clientIds.length) return new Map<string, { id: string; realmClient: boolean }>();
  const rows = await ctx.db.models.Client.findAll({
    where: { realmId: realm.id, clientId: { [Op.in]: clientIds } },
    attributes: ['id', 'clientId', 'realmClient'],
  });
  return new Map(rows.map((c) => [c.clientId, { id: c.id, realmClient: c.realmClient }]));
}

export function clientsKind(ctx: RequestContext, realm: RealmModel, reps: Rep[]): Kind {
  return {
    type: 'CLIENT',
    async prepare() {
      const wanted = reps.filter((r) => !INTERNAL_CLIENTS.has(str(r.clientId)));
      const existing = await clientsByClientId(
        ctx,
        realm,
        wanted.map((r) => str(r.clientId)),
      );
      return wanted
        .filter((r) => !existing.get(str(r.clientId))?.realmClient)
        .map((rep) => {
          const id = existing.get(str(rep.clientId))?.id;
          return { rep, name: str(rep.clientId), existingId: id, reportedId: id };
        });
    },
    existsMessage: (item) => `Client id '${item.name}' already exists`,
    remove: (item) => deleteClient(ctx, realm, item.existingId as string),
    // authorizationSettings are imported once every kind is (partial-import.ts): policies name roles, groups, users.
    create: (item) =>
      createClient(ctx, realm, {
        ...without(item.rep, 'id', 'authorizationSettings'),
        protocolMappers: objects(item.rep.protocolMappers).map((m) => without(m, 'id')),
      }),
    event: (id) => ({ resourceType: 'CLIENT', resourcePath: `clients/${id}` }),
  };
}

interface RoleItem extends Item {
  clientId?: string;
}

/** Realm roles (`roles.realm`) and client roles (`roles.client`, by clientId); composites are added once all exist. */
export function rolesKinds(ctx: RequestContext, realm: RealmModel, roles: Rep, clientsInBody: Set<string>): Kind[] {
  const created: Array<{ clientUuid?: string; rep: Rep }> = [];
  const clientRoles = roles.client && typeof roles.client === 'object' && !Array.isArray(roles.client) ? (roles.client as Rep) : {};
  let uuids = new Map<string, { id: string; realmClient: boolean }>();
  const uuidOf = async (clientId: string) => {
    if (!uuids.has(clientId)) uuids = await clientsByClientId(ctx, realm, Object.keys(clientRoles));
    return uuids.get(clientId)?.id as string;
  };
  const existingRoles = async (containerId: string | undefined, names: string[]) => {
    if (!containerId || !names.length) return new Map<string, string>();
    const rows = await ctx.db.models.Role.findAll({ where: { containerId, name: { [Op.in]: names } }, attributes: ['id', 'name'] });
    return new Map(rows.map((r) => [r.name, r.id]));
  };
  let fresh = false;
  /** Deletes an existing role, unless it went with its overwritten client. */
  const removeRole = async (item: Item) => {
    if (await ctx.db.models.Role.findByPk(item.existingId as string, { attributes: ['id'] })) {
      await deleteRole(ctx, realm, { id: item.existingId as string });
    }
  };
  const composites = () => addImportedComposites(ctx, realm, created.splice(0));
  const realmKind: Kind = {
    type: 'REALM_ROLE',
    async prepare() {
      const reps = objects(roles.realm);
      const existing = await existingRoles(
        realm.id,
        reps.map((r) => str(r.name)),
      );
      return reps.map((rep) => {
        const id = existing.get(str(rep.name));
        return { rep, name: str(rep.name), existingId: id, reportedId: id };
      });
    },
    existsMessage: (item) => `Realm role '${item.name}' already exists.`,
    remove: (item) => removeRole(item),
    async create(item) {
      const name = await createRole(ctx, realm, undefined, {
        name: item.name,
        description: item.rep.description as string,
        attributes: item.rep.attributes as Record<string, string[]>,
      });
      created.push({ rep: item.rep });
      // Keycloak reports the new role's id (createRole answers its name, for the Location header).
      const row = await ctx.db.models.Role.findOne({ where: { realmId: realm.id, clientId: null, name }, attributes: ['id'] });
      return row?.id ?? name;
    },
    event: (id) => ({ resourceType: 'REALM_ROLE', resourcePath: `roles-by-id/${id}` }),
  };
  const clientKind: Kind = {
    type: 'CLIENT_ROLE',
    async prepare() {
      const items: RoleItem[] = [];
      for (const [clientId, list] of Object.entries(clientRoles)) {
        const uuid = await uuidOf(clientId);
        if (!uuid && !clientsInBody.has(clientId)) {
          throw errorA(412, `Can not import client roles for nonexistent client named ${clientId}`);
        }
        const reps = objects(list);
        const existing = await existingRoles(
          uuid,
          reps.map((r) => str(r.name)),
        );
        for (const rep of reps) {
          const id = existing.get(str(rep.name));
          items.push({ rep, clientId, name: `${clientId}-->${str(rep.name)}`, existingId: id, reportedId: id ? uuid : undefined });
        }
      }
      return items;
    },
    existsMessage: (item) => `Client role '${str(item.rep.name)}' for client '${(item as RoleItem).clientId}' already exists.`,
    remove: (item) => removeRole(item),
    async create(item) {
      if (!fresh) uuids.clear(); // overwritten clients have new ids
      fresh = true;
      const clientUuid = await uuidOf((item as RoleItem).clientId as string);
      await createRole(ctx, realm, clientUuid, {
        name: str(item.rep.name),
        description: item.rep.description as string,
        attributes: item.rep.attributes as Record<string, string[]>,
      });
      created.push({ clientUuid, rep: item.rep });
      return clientUuid;
    },
    /** Composites of realm and client roles, once all roles of the body exist. */
    finish: composites,
    event: (id, item) => ({ resourceType: 'CLIENT_ROLE', resourcePath: `clients/${id}/roles/${str(item.rep.name)}` }),
  };
  return [realmKind, clientKind];
}

export function identityProvidersKind(ctx: RequestContext, realm: RealmModel, reps: Rep[]): Kind {
  return {
    type: 'IDP',
    async prepare() {
      const aliases = reps.map((r) => str(r.alias));
      const rows = aliases.length
        ? await ctx.db.models.IdentityProvider.findAll({
            where: { realmId: realm.id, alias: { [Op.in]: aliases } },
            attributes: ['internalId', 'alias'],
          })
        : [];
      const internalIds = new Map(rows.map((p) => [p.alias, p.internalId]));
      return reps.map((rep) => {
        const internalId = internalIds.get(str(rep.alias));
        return { rep, name: str(rep.alias), existingId: internalId ? str(rep.alias) : undefined, reportedId: internalId };
      });
    },
    existsMessage: (item) => `Identity Provider '${item.name}' already exists.`,
    async remove(item) {
      const idp = await findIdentityProvider(ctx, realm, item.name);
      if (idp) await removeIdentityProviderRows(ctx, realm, idp);
    },
    async create(item) {
      const alias = await createIdentityProvider(ctx, realm, without(item.rep, 'internalId'));
      return (await findIdentityProvider(ctx, realm, alias))?.internalId ?? alias;
    },
    event: (_id, item) => ({ resourceType: 'IDENTITY_PROVIDER', resourcePath: `identity-provider/instances/${item.name}` }),
  };
}

/** Mappers named by provider alias and mapper name; an existing one is replaced on OVERWRITE (IdentityProviderMappersPartialImport). */
export function identityProviderMappersKind(ctx: RequestContext, realm: RealmModel, reps: Rep[]): Kind {
  const key = (alias: string, name: string) => `${alias}\u0000${name}`;
  return {
    type: 'IDP_MAPPER',
    async prepare() {
      const aliases = [...new Set(reps.map((r) => str(r.identityProviderAlias)))];
      const providers = aliases.length
        ? await ctx.db.models.IdentityProvider.findAll({
            where: { realmId: realm.id, alias: { [Op.in]: aliases } },
            attributes: ['internalId', 'alias'],
          })
        : [];
      const aliasOf = new Map(providers.map((p) => [p.internalId, p.alias]));
      const mappers = providers.length
        ? await ctx.db.models.IdpMapper.findAll({
            where: { identityProviderId: { [Op.in]: [...aliasOf.keys()] } },
            attributes: ['id', 'identityProviderId', 'name'],
          })
        : [];
      const existing = new Map(mappers.map((m) => [key(aliasOf.get(m.identityProviderId) as string, m.name), m.id]));
      return reps.map((rep) => {
        const id = existing.get(key(str(rep.identityProviderAlias), str(rep.name)));
        return { rep, name: str(rep.name), existingId: id, reportedId: id };
      });
    },
    existsMessage: (item) => `Identity Provider Mapper'${item.name}' already exists.`,
    async remove(item) {
      await ctx.db.models.IdpMapper.destroy({ where: { id: item.existingId as string } });
    },
    create: (item) => createIdentityProviderMapper(ctx, realm, without(item.rep, 'id')),
    event: (id, item) => ({
      resourceType: 'IDENTITY_PROVIDER_MAPPER',
      resourcePath: `identity-provider/instances/${str(item.rep.identityProviderAlias)}/mappers/${id}`,
    }),
  };
}

export function groupsKind(ctx: RequestContext, realm: RealmModel, reps: Rep[]): Kind {
  return {
    type: 'GROUP',
    async prepare() {
      const names = reps.map((r) => str(r.name));
      const rows = names.length
        ? await ctx.db.models.Group.findAll({
            where: { realmId: realm.id, parentId: TOP_LEVEL, name: { [Op.in]: names } },
            attributes: ['id', 'name'],
          })
        : [];
      const existing = new Map(rows.map((g) => [g.name, g.id]));
      return reps.map((rep) => {
        const id = existing.get(str(rep.name));
        return { rep, name: str(rep.name), existingId: id, reportedId: id };
      });
    },
    existsMessage: (item) => `Group '${str(item.rep.path) || `/${item.name}`}' already exists`,
    remove: async (item) => removeGroup(ctx, realm, await findGroup(ctx, realm, item.existingId as string)),
    create: async (item) => (await importGroupTrees(ctx, realm, [item.rep]))[0],
    createAll: (items) =>
      importGroupTrees(
        ctx,
        realm,
        items.map((i) => i.rep),
      ),
    event: (id) => ({ resourceType: 'GROUP', resourcePath: `groups/${id}` }),
  };
}

export function usersKind(ctx: RequestContext, realm: RealmModel, reps: Rep[]): Kind {
  const duplicateEmails = realm.settings.duplicateEmailsAllowed === true;
  const nameOf = (rep: Rep) => str(rep.username) || str(rep.email);
  return {
    type: 'USER',
    async prepare() {
      // Service-account users come with their clients (created with serviceAccountsEnabled).
      const users = reps.filter((r) => !r.serviceAccountClientId);
      const usernames = users.map((r) => str(r.username).toLowerCase()).filter(Boolean);
      const emails = duplicateEmails ? [] : users.map((r) => str(r.email).toLowerCase()).filter(Boolean);
      const or = [
        ...(usernames.length ? [{ username: { [Op.in]: usernames } }] : []),
        ...(emails.length ? [{ email: { [Op.in]: emails } }] : []),
      ];
      const rows = or.length
        ? await ctx.db.models.User.findAll({ where: { realmId: realm.id, [Op.or]: or }, attributes: ['id', 'username', 'email'] })
        : [];
      return users.map((rep) => {
        const u = str(rep.username).toLowerCase();
        const e = str(rep.email).toLowerCase();
        const found = rows.find((r) => (u && r.username === u) || (!duplicateEmails && e && r.email === e));
        return { rep, name: nameOf(rep), existingId: found?.id, reportedId: found?.id };
      });
    },
    existsMessage: (item) =>
      item.rep.email == null || !duplicateEmails
        ? `User with user name ${item.name} already exists.`
        : `User with user name ${item.name} or with email ${str(item.rep.email)} already exists.`,
    remove: async (item) => deleteUser(ctx, realm, await resolveUser(ctx, realm, item.existingId as string)),
    create: async (item) => (await importUsers(ctx, realm, [item.rep]))[0],
    createAll: (items) =>
      importUsers(
        ctx,
        realm,
        items.map((i) => i.rep),
      ),
    event: (id) => ({ resourceType: 'USER', resourcePath: `users/${id}` }),
  };
}
