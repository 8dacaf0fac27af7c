import { requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import { badRequest, notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import { CONDITION_IDS, EXECUTOR_IDS, globalProfiles } from '../../keycloak/client-policies-data';
import type { RequestContext } from '../../core/context';
import { invalidate } from '../../loaders/invalidate';
import {
  type ClientPoliciesRepresentation,
  type ClientPolicyExecutorRepresentation,
  type ClientPolicyRepresentation,
  type ClientProfileRepresentation,
  type ClientProfilesRepresentation,
  type ProviderConfiguration,
  listOf,
  toClientPolicyConditionRepresentation,
  toClientPolicyRepresentation,
  toClientProfileRepresentation,
} from '../../representations/client-policy';

/**
 * Client policies and profiles (config reference §10.1): stored per realm in the realm settings
 * (`clientProfiles` / `clientPolicies`, Keycloak's realm attributes `client-policies.*`) and
 * replaced as a whole by PUT after Keycloak's validation, whose failures are 400
 * `{"errorMessage": ...}`. GET needs view-realm, PUT manage-realm.
 */
export interface ClientProfiles {
  profiles: ClientProfileRepresentation[];
  globalProfiles?: ClientProfileRepresentation[];
}
export interface ClientPolicies {
  policies: ClientPolicyRepresentation[];
  globalPolicies?: ClientPolicyRepresentation[];
}

/** The realm's settings JSON (realm representation fields that are not columns). */
type RealmSettings = RealmModel['settings'];
const isObject = (v: unknown): v is ProviderConfiguration => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const isTrue = (v: unknown) => v === true || v === 'true';

/** Deep equality of JSON values, object keys in any order (Jackson's JsonNode equality). */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== null && a[k] !== undefined);
    const other = Object.keys(b).filter((k) => b[k] !== null && b[k] !== undefined);
    return keys.length === other.length && keys.every((k) => sameJson(a[k], b[k]));
  }
  return a === b;
}

function storedProfiles(realm: RealmModel): ClientProfileRepresentation[] {
  return listOf((realm.settings.clientProfiles as ClientProfilesRepresentation | undefined)?.profiles);
}

function storedPolicies(realm: RealmModel): ClientPolicyRepresentation[] {
  return listOf((realm.settings.clientPolicies as ClientPoliciesRepresentation | undefined)?.policies);
}

/** Executor configuration checks Keycloak's configuration classes make. */
function validExecutor(e: ClientPolicyExecutorRepresentation): boolean {
  if (typeof e?.executor !== 'string' || !EXECUTOR_IDS.has(e.executor)) return false;
  const conf = e.configuration;
  if (conf === undefined || conf === null) return true;
  if (!isObject(conf)) return false;
  if (e.executor === 'secure-client-authenticator') {
    const allowed = conf['allowed-client-authenticators'];
    const def = conf['default-client-authenticator'];
    if (allowed !== undefined && allowed !== null && !Array.isArray(allowed)) return false;
    if (Array.isArray(allowed) && allowed.length && typeof def === 'string' && !allowed.includes(def)) return false;
  }
  return true;
}

/** Validates proposed profiles as Keycloak does; returns the list to store. */
export function validateProfiles(body: ClientProfilesRepresentation): ClientProfileRepresentation[] {
  const proposed = listOf(body.profiles);
  if (proposed.some((p) => typeof p?.name !== 'string' || p.name === '')) throw badRequest('client profile without its name not allowed.');
  if (new Set(proposed.map((p) => p.name)).size !== proposed.length) throw badRequest('proposed client profile name duplicated.');
  const global = globalProfiles();
  const sentGlobal = listOf(body.globalProfiles);
  if (sentGlobal.length && !sameJson(sentGlobal.map(toClientProfileRepresentation), global))
    throw badRequest('Global profiles cannot be updated');
  const globalNames = new Set(global.map((g) => g.name));
  for (const p of proposed) {
    if (globalNames.has(p.name)) throw badRequest(`Proposed profile name '${p.name}' is duplicated as a global profile`);
  }
  for (const p of proposed) {
    if (p.executors !== undefined && p.executors !== null && !listOf(p.executors).every(validExecutor)) {
      throw badRequest('proposed client profile contains the executor, which does not have valid provider, or has invalid configuration.');
    }
  }
  return proposed.map(toClientProfileRepresentation);
}

/** Validates proposed policies against the realm's and the global profiles; returns the list to store. */
export function validatePolicies(
  body: ClientPoliciesRepresentation,
  realmProfiles: ClientProfileRepresentation[],
): ClientPolicyRepresentation[] {
  if (listOf(body.globalPolicies).length) throw badRequest('Global policies cannot be updated');
  const proposed = listOf(body.policies);
  if (new Set(proposed.map((p) => p?.name ?? null)).size !== proposed.length) throw badRequest('proposed client policy name duplicated');
  const profileNames = new Set([...realmProfiles, ...globalProfiles()].map((p) => p.name));
  return proposed.map((p) => {
    if (p?.name === undefined || p?.name === null) throw badRequest('client policy without name not allowed');
    const name = String(p.name);
    const conditions = listOf(p.conditions).map((c) => {
      const id = c?.condition;
      if (typeof id !== 'string' || !CONDITION_IDS.has(id)) throw badRequest(`Policy ${name} contains invalid condition ${id ?? null}`);
      if (c.configuration !== undefined && c.configuration !== null && !isObject(c.configuration)) {
        throw badRequest(`Invalid ${id} configuration - the configuration must be a JSON object`);
      }
      return toClientPolicyConditionRepresentation(c);
    });
    const profiles = listOf(p.profiles).map(String);
    if (new Set(profiles).size !== profiles.length) throw badRequest(`Policy ${name} contains duplicated profiles`);
    for (const profile of profiles) {
      if (!profileNames.has(profile)) throw badRequest(`Policy ${name} contains invalid profile ${profile}`);
    }
    return toClientPolicyRepresentation({
      name,
      description: p.description,
      enabled: isTrue(p.enabled),
      conditions,
      profiles,
    });
  });
}

/** GET /{realm}/client-policies/profiles: `{profiles}` plus `globalProfiles` when asked for (view-realm). */
export async function getClientProfiles(ctx: RequestContext, realm: RealmModel, includeGlobal = false): Promise<ClientProfiles> {
  await requireCap(ctx, realm, 'viewRealm');
  const out: ClientProfiles = { profiles: storedProfiles(realm) };
  if (includeGlobal) out.globalProfiles = globalProfiles();
  return out;
}

/** GET /{realm}/client-policies/policies: `{policies}` plus `globalPolicies` (none) when asked for (view-realm). */
export async function getClientPolicies(ctx: RequestContext, realm: RealmModel, includeGlobal = false): Promise<ClientPolicies> {
  await requireCap(ctx, realm, 'viewRealm');
  const out: ClientPolicies = { policies: storedPolicies(realm) };
  if (includeGlobal) out.globalPolicies = [];
  return out;
}

/** Reads the realm row for update, applies `change` to its settings and saves, in one transaction. */
async function writeSettings(
  ctx: RequestContext,
  realm: RealmModel,
  change: (settings: RealmSettings) => RealmSettings,
  path: string,
  rep: unknown,
) {
  await ctx.db.transaction(async () => {
    const fresh = await ctx.db.models.Realm.findByPk(realm.id, { lock: true });
    if (!fresh) throw notFound('Realm not found.');
    fresh.settings = change({ ...fresh.settings });
    await fresh.save();
    realm.settings = fresh.settings;
    await recordAdminEvent(ctx, fresh, { operationType: 'UPDATE', resourceType: 'REALM', resourcePath: path, representation: rep });
  });
  invalidate.realm(ctx.loaders, realm);
}

/** PUT /{realm}/client-policies/profiles: validates and replaces the realm's profiles (manage-realm). */
export async function updateClientProfiles(ctx: RequestContext, realm: RealmModel, body: ClientProfilesRepresentation): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  const profiles = validateProfiles(body);
  await writeSettings(ctx, realm, (s) => ({ ...s, clientProfiles: { profiles } }), 'client-policies/profiles', { profiles });
}

/** PUT /{realm}/client-policies/policies: validates and replaces the realm's policies (manage-realm). */
export async function updateClientPolicies(ctx: RequestContext, realm: RealmModel, body: ClientPoliciesRepresentation): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  let policies: ClientPolicyRepresentation[] = [];
  await writeSettings(
    ctx,
    realm,
    (s) => {
      policies = validatePolicies(body, listOf((s.clientProfiles as ClientProfilesRepresentation | undefined)?.profiles));
      return { ...s, clientPolicies: { policies } };
    },
    'client-policies/policies',
    body,
  );
}

/** Validates and stores `clientProfiles` / `clientPolicies` of a realm representation (POST /admin/realms). Inside the import transaction. */
export async function importClientPolicies(
  ctx: RequestContext,
  realm: RealmModel,
  rep: { clientProfiles?: unknown; clientPolicies?: unknown },
): Promise<void> {
  if (!isObject(rep.clientProfiles) && !isObject(rep.clientPolicies)) return;
  const profiles = isObject(rep.clientProfiles) ? validateProfiles(rep.clientProfiles) : storedProfiles(realm);
  const settings: RealmSettings = { ...realm.settings, clientProfiles: { profiles } };
  if (isObject(rep.clientPolicies)) settings.clientPolicies = { policies: validatePolicies(rep.clientPolicies, profiles) };
  realm.settings = settings;
  await realm.save();
  invalidate.realm(ctx.loaders, realm);
}
