import { randomBytes, randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { KEY_PROVIDER_TYPE, defaultKeyProviders, type GeneratedComponent } from '../../auth/keys';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { MASTER } from '../../auth/permissions';
import {
  DEFAULT_REQUIRED_ACTIONS,
  adminClient,
  builtInClientMappers,
  builtInClients,
  builtInClientScopes,
  builtInScopeMappers,
  defaultRealmSettings,
  masterRealmOverrides,
  registrationPolicies,
  type ClientDefault,
} from '../../keycloak/realm-defaults';
import { builtInFlowRows } from '../../keycloak/auth-flow-defaults';
import type { RealmSettingsRep } from '../../representations/realm';

/**
 * Creates everything Keycloak puts into a new realm. Runs inside the caller's transaction; key
 * material is generated beforehand (`prepareRealmKeys`) so the write lock is not held during it.
 */
export const prepareRealmKeys = (name: string) => defaultKeyProviders(name);

const CLIENT_DEFAULT_SCOPES = ['web-origins', 'acr', 'profile', 'roles', 'basic', 'email'];
const CLIENT_OPTIONAL_SCOPES = ['address', 'phone', 'organization', 'offline_access', 'microprofile-jwt'];

/** Inserts a client with its roles (and role composites among them). Returns the client. */
export async function insertClient(db: Db, realm: RealmModel, def: ClientDefault, realmIdForClient = realm.id): Promise<ClientModel> {
  const { Client, Role, CompositeRole } = db.models;
  const publicClient = def.publicClient ?? false;
  const bearerOnly = def.bearerOnly ?? false;
  const client = await Client.create({
    id: randomUUID(),
    realmId: realmIdForClient,
    clientId: def.clientId,
    name: def.name,
    enabled: true,
    protocol: 'openid-connect',
    publicClient,
    bearerOnly,
    serviceAccountsEnabled: false,
    directAccessGrantsEnabled: def.directAccessGrantsEnabled ?? false,
    fullScopeAllowed: def.fullScopeAllowed ?? true,
    secret: publicClient || bearerOnly ? null : randomBytes(24).toString('base64url'),
    realmClient: def.realmClient ?? false,
    settings: {
      surrogateAuthRequired: false,
      alwaysDisplayInConsole: false,
      clientAuthenticatorType: 'client-secret',
      redirectUris: [],
      webOrigins: [],
      notBefore: 0,
      consentRequired: false,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      frontchannelLogout: false,
      nodeReRegistrationTimeout: 0,
      authenticationFlowBindingOverrides: {},
      ...def.settings,
    },
  });
  const byName = new Map<string, string>();
  for (const r of def.roles ?? []) byName.set(r.name, randomUUID());
  if (byName.size) {
    await Role.bulkCreate(
      (def.roles ?? []).map((r) => ({
        id: byName.get(r.name),
        realmId: realmIdForClient,
        clientId: client.id,
        containerId: client.id,
        name: r.name,
        description: `\${role_${r.name}}`,
      })),
    );
  }
  const edges = (def.roles ?? []).flatMap((r) =>
    (r.composites ?? []).map((c) => ({ compositeId: byName.get(r.name) as string, childId: byName.get(c) as string })),
  );
  if (edges.length) await CompositeRole.bulkCreate(edges);
  return client;
}

async function insertRealmRole(db: Db, realm: RealmModel, name: string, description: string): Promise<string> {
  const id = randomUUID();
  await db.models.Role.create({ id, realmId: realm.id, clientId: null, containerId: realm.id, name, description });
  return id;
}

async function roleIdsOfClient(db: Db, clientId: string, names?: string[]): Promise<string[]> {
  const where = names ? { clientId, name: { [Op.in]: names } } : { clientId };
  return (await db.models.Role.findAll({ where, attributes: ['id'] })).map((r) => r.id);
}

/** Adds the `<realm>-realm` admin client in master and links its roles into master's `admin` composite. */
export async function setupMasterAdminClient(db: Db, realm: RealmModel, master: RealmModel): Promise<void> {
  // An imported master realm brings the `<realm>-realm` clients of the realms imported after it: kept as they are.
  const existing = await db.models.Client.findOne({ where: { realmId: master.id, clientId: `${realm.name}-realm` } });
  if (existing) return;
  const client = await insertClient(db, realm, adminClient('master-realm-client', realm.name), master.id);
  const admin = await db.models.Role.findOne({ where: { containerId: master.id, name: 'admin' } });
  if (admin) {
    const ids = await roleIdsOfClient(db, client.id);
    await db.models.CompositeRole.bulkCreate(ids.map((childId) => ({ compositeId: admin.id, childId })));
  }
}

/**
 * Built-in parts a full import replaces (RealmManager.importRealm): built-in clients the
 * representation brings itself, the built-in client scopes (only `builtInScopes` are created when the
 * representation has `clientScopes`), client-registration policies of the sub-types it brings.
 */
export interface SetupSkips {
  clients?: Set<string>;
  builtInScopes?: string[];
  registrationPolicySubTypes?: Set<string>;
}

/** Creates the realm row with defaults and all built-in parts. `keys` come from prepareRealmKeys. */
export async function setupRealm(
  db: Db,
  opts: { id?: string; name: string; enabled: boolean; settings: RealmSettingsRep; keys: GeneratedComponent[]; skip?: SetupSkips },
): Promise<RealmModel> {
  const m = db.models;
  const skip = opts.skip ?? {};
  const wanted = (clientId: string) => !skip.clients?.has(clientId);
  const isMaster = opts.name === MASTER;
  const realmId = opts.id ?? randomUUID();
  const settings = { ...defaultRealmSettings(), ...(isMaster ? masterRealmOverrides() : {}), ...opts.settings };
  const realm = await m.Realm.create({ id: realmId, name: opts.name, enabled: opts.enabled, settings, createdAt: Date.now() });

  // Realm roles and the default role.
  const offline = await insertRealmRole(db, realm, 'offline_access', '${role_offline-access}');
  const uma = await insertRealmRole(db, realm, 'uma_authorization', '${role_uma_authorization}');
  const defaultRoleId = await insertRealmRole(db, realm, `default-roles-${opts.name.toLowerCase()}`, '${role_default-roles}');
  realm.settings = { ...realm.settings, defaultRoleId };
  await realm.save();

  let master: RealmModel | null = realm;
  if (isMaster) {
    const adminRoleId = await insertRealmRole(db, realm, 'admin', '${role_admin}');
    const createRealmId = await insertRealmRole(db, realm, 'create-realm', '${role_create-realm}');
    await m.CompositeRole.create({ compositeId: adminRoleId, childId: createRealmId });
  } else {
    master = await m.Realm.findOne({ where: { name: MASTER } });
  }

  // Built-in clients.
  const clients = new Map<string, ClientModel>();
  for (const def of builtInClients(opts.name)) {
    if (wanted(def.clientId)) clients.set(def.clientId, await insertClient(db, realm, def));
  }
  if (!isMaster && wanted('realm-management')) {
    clients.set('realm-management', await insertClient(db, realm, adminClient('realm-management', opts.name)));
  }
  if (master && (!isMaster || wanted(`${MASTER}-realm`))) await setupMasterAdminClient(db, realm, master);

  // Default role composites: offline_access, uma_authorization, account view-profile + manage-account.
  const account = clients.get('account');
  const accountRoles = account ? await roleIdsOfClient(db, account.id, ['view-profile', 'manage-account']) : [];
  await m.CompositeRole.bulkCreate([offline, uma, ...accountRoles].map((childId) => ({ compositeId: defaultRoleId, childId })));

  // Client scopes, realm default lists, and client links.
  const scopeIds = new Map<string, string>();
  const scopeNames = skip.builtInScopes ? new Set(skip.builtInScopes) : undefined;
  const scopes = builtInClientScopes().filter((s) => !scopeNames || scopeNames.has(s.name));
  for (const s of scopes) scopeIds.set(s.name, randomUUID());
  await m.ClientScope.bulkCreate(
    scopes.map((s) => ({
      id: scopeIds.get(s.name),
      realmId: realm.id,
      name: s.name,
      protocol: s.protocol,
      description: s.description,
      attributes: s.attributes,
    })),
  );
  await m.RealmDefaultClientScope.bulkCreate(
    scopes
      .filter((s) => s.realmList)
      .map((s) => ({ realmId: realm.id, scopeId: scopeIds.get(s.name), defaultScope: s.realmList === 'default' })),
  );
  if (scopeIds.has('offline_access')) await m.ScopeMapping.create({ ownerId: scopeIds.get('offline_access'), roleId: offline });
  // Protocol mappers of the built-in scopes and clients.
  const scopeMappers = Object.entries(builtInScopeMappers()).flatMap(([scope, list]) =>
    scopeIds.has(scope) ? list.map((pm) => ({ ...pm, id: randomUUID(), clientScopeId: scopeIds.get(scope), clientId: null })) : [],
  );
  const clientMappers = Object.entries(builtInClientMappers()).flatMap(([clientId, list]) =>
    clients.has(clientId) ? list.map((pm) => ({ ...pm, id: randomUUID(), clientId: clients.get(clientId)?.id, clientScopeId: null })) : [],
  );
  await m.ProtocolMapper.bulkCreate([...scopeMappers, ...clientMappers]);
  const accountConsole = clients.get('account-console');
  if (account && accountConsole) {
    const consoleRoles = await roleIdsOfClient(db, account.id, ['manage-account', 'view-groups']);
    await m.ScopeMapping.bulkCreate(consoleRoles.map((roleId) => ({ ownerId: accountConsole.id, roleId })));
  }
  const links = [...clients.values()].flatMap((c) => [
    ...CLIENT_DEFAULT_SCOPES.filter((n) => scopeIds.has(n)).map((n) => ({ clientId: c.id, scopeId: scopeIds.get(n), defaultScope: true })),
    ...CLIENT_OPTIONAL_SCOPES.filter((n) => scopeIds.has(n)).map((n) => ({
      clientId: c.id,
      scopeId: scopeIds.get(n),
      defaultScope: false,
    })),
  ]);
  await m.ClientScopeClient.bulkCreate(links);

  // Required actions and components (keys, client registration policies).
  await m.RequiredAction.bulkCreate(
    DEFAULT_REQUIRED_ACTIONS.map((a) => ({
      id: randomUUID(),
      realmId: realm.id,
      alias: a.alias,
      name: a.name,
      providerId: a.alias,
      enabled: a.enabled,
      defaultAction: false,
      priority: a.priority,
      config: {},
    })),
  );
  // Built-in authentication flows, executions and configs (the realm's flow bindings point at them).
  const authRows = builtInFlowRows(realm.id, isMaster);
  await m.AuthFlow.bulkCreate(authRows.flows);
  await m.AuthenticatorConfig.bulkCreate(authRows.configs);
  await m.AuthExecution.bulkCreate(authRows.executions);
  await m.Component.bulkCreate([
    ...opts.keys.map((k) => ({
      id: randomUUID(),
      realmId: realm.id,
      parentId: realm.id,
      name: k.name,
      providerId: k.providerId,
      providerType: KEY_PROVIDER_TYPE,
      subType: null,
      config: k.config,
    })),
    ...registrationPolicies()
      .filter((p) => !skip.registrationPolicySubTypes?.has(p.subType))
      .map((p) => ({ id: randomUUID(), realmId: realm.id, parentId: realm.id, ...p })),
  ]);
  return realm;
}
