import { randomUUID } from 'node:crypto';
import type { RequiredActionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { errorB, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import { type RequiredActionRep, requiredActionOrder, toRequiredActionRepresentation } from '../../representations/required-action';
import { type Rep, authEvent, requireAuthRight, stringMap, swapWithNeighbour } from './common';
import { REQUIRED_ACTION_PROVIDERS, type RequiredActionProviderInfo } from '../../keycloak/authenticator-providers';
import type { RequestContext } from '../../core/context';

/**
 * Required actions of a realm (config reference §9.9): list (by priority, then name), read, update,
 * delete, move, register a provider, the providers not registered yet, and per-action config.
 */
export type RequiredActionInput = RequiredActionRep;

/** The realm's required actions in Keycloak's order (priority, then name). */
export async function sortedRequiredActions(ctx: RequestContext, realm: RealmModel): Promise<RequiredActionModel[]> {
  return (await ctx.db.models.RequiredAction.findAll({ where: { realmId: realm.id } })).sort(requiredActionOrder);
}

const sorted = sortedRequiredActions;

async function byAlias(ctx: RequestContext, realm: RealmModel, alias: string, message: string): Promise<RequiredActionModel> {
  const action = await ctx.db.models.RequiredAction.findOne({ where: { realmId: realm.id, alias } });
  if (!action) throw errorC(404, message);
  return action;
}

const NOT_FOUND = 'Failed to find required action';
const duplicate = () => errorB(409, 'conflict', 'A Required Action Provider with given alias already exists.');

/** GET /{realm}/authentication/required-actions. */
export async function listRequiredActions(ctx: RequestContext, realm: RealmModel): Promise<RequiredActionRep[]> {
  await requireAuthRight(ctx, realm, 'viewRequiredActions');
  return (await sorted(ctx, realm)).map(toRequiredActionRepresentation);
}

/** GET /{realm}/authentication/required-actions/{alias}: 404 `Failed to find required action`. */
export async function getRequiredAction(ctx: RequestContext, realm: RealmModel, alias: string): Promise<RequiredActionRep> {
  await requireAuthRight(ctx, realm, 'view');
  return toRequiredActionRepresentation(await byAlias(ctx, realm, alias, NOT_FOUND));
}

/** PUT /{realm}/authentication/required-actions/{alias}: replaces name, alias, flags, priority and config (providerId kept). */
export async function updateRequiredAction(ctx: RequestContext, realm: RealmModel, alias: string, rep: RequiredActionInput): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const action = await byAlias(ctx, realm, alias, NOT_FOUND);
  await write(ctx, { unique: duplicate }, async () => {
    if (rep.name) action.name = rep.name;
    if (rep.alias) action.alias = rep.alias;
    action.defaultAction = rep.defaultAction === true;
    action.enabled = rep.enabled === true;
    action.priority = typeof rep.priority === 'number' ? rep.priority : 0;
    action.config = stringMap(rep.config);
    await action.save();
    await authEvent(ctx, realm, 'UPDATE', 'REQUIRED_ACTION', `required-actions/${alias}`, rep);
  });
}

/** DELETE /{realm}/authentication/required-actions/{alias}: 404 `Failed to find required action.`. */
export async function deleteRequiredAction(ctx: RequestContext, realm: RealmModel, alias: string): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const action = await byAlias(ctx, realm, alias, `${NOT_FOUND}.`);
  await ctx.db.transaction(async () => {
    await ctx.db.models.RequiredAction.destroy({ where: { id: action.id } });
    await authEvent(ctx, realm, 'DELETE', 'REQUIRED_ACTION', `required-actions/${alias}`);
  });
}

/** POST /{realm}/authentication/required-actions/{alias}/raise-priority | lower-priority: swaps with the neighbour. */
export async function moveRequiredAction(
  ctx: RequestContext,
  realm: RealmModel,
  alias: string,
  direction: 'raise' | 'lower',
): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  await byAlias(ctx, realm, alias, `${NOT_FOUND}.`);
  await ctx.db.transaction(async () => {
    const all = await sorted(ctx, realm);
    if (
      !(await swapWithNeighbour(
        all,
        all.findIndex((a) => a.alias === alias),
        direction,
      ))
    )
      return;
    await authEvent(ctx, realm, 'UPDATE', 'REQUIRED_ACTION', `required-actions/${alias}/${direction}-priority`);
  });
}

/** GET /{realm}/authentication/unregistered-required-actions: `[{name, providerId}]`. */
export async function listUnregisteredRequiredActions(ctx: RequestContext, realm: RealmModel): Promise<Rep[]> {
  await requireAuthRight(ctx, realm, 'view');
  const registered = new Set(
    (await ctx.db.models.RequiredAction.findAll({ where: { realmId: realm.id }, attributes: ['providerId'] })).map((a) => a.providerId),
  );
  return REQUIRED_ACTION_PROVIDERS.filter((p) => !registered.has(p.providerId)).map((p) => ({ name: p.name, providerId: p.providerId }));
}

/** POST /{realm}/authentication/register-required-action: registers a provider (alias = providerId, last priority + 1). */
export async function registerRequiredAction(ctx: RequestContext, realm: RealmModel, body: Record<string, string>): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const provider = REQUIRED_ACTION_PROVIDERS.find((p) => p.providerId === body.providerId);
  if (!provider) throw errorC(400, 'Required Action Provider with given providerId not found');
  const id = randomUUID();
  await write(ctx, { unique: duplicate }, async () => {
    const all = await sorted(ctx, realm);
    if (all.some((a) => a.alias === provider.providerId)) throw duplicate();
    await ctx.db.models.RequiredAction.create({
      id,
      realmId: realm.id,
      alias: provider.providerId,
      name: body.name || provider.name,
      providerId: provider.providerId,
      enabled: true,
      defaultAction: false,
      priority: all.length ? all[all.length - 1].priority + 1 : 0,
      config: {},
    });
    await authEvent(ctx, realm, 'CREATE', 'REQUIRED_ACTION', 'register-required-action', { ...body, id });
  });
}

/** The registered action and its provider, when the provider is configurable; else null. */
async function configurable(
  ctx: RequestContext,
  realm: RealmModel,
  alias: string,
): Promise<[RequiredActionModel, RequiredActionProviderInfo] | null> {
  const action = await ctx.db.models.RequiredAction.findOne({ where: { realmId: realm.id, alias } });
  const provider = action && REQUIRED_ACTION_PROVIDERS.find((p) => p.providerId === action.providerId);
  return action && provider?.properties.length ? [action, provider] : null;
}

/** GET /{realm}/authentication/required-actions/{alias}/config-description: `{properties}`. */
export async function getRequiredActionConfigDescription(ctx: RequestContext, realm: RealmModel, alias: string): Promise<Rep> {
  await requireAuthRight(ctx, realm, 'view');
  const found = await configurable(ctx, realm, alias);
  if (!found) throw errorC(404, 'Could not find configurable RequiredAction provider');
  return { properties: found[1].properties };
}

async function configOf(ctx: RequestContext, realm: RealmModel, alias: string) {
  const found = await configurable(ctx, realm, alias);
  if (!found) throw errorC(400, 'RequiredAction is not configurable');
  return found;
}

/** A stored value as Keycloak's admin client reads it back: an `int` property's digits as a number. */
function typedValue(type: string | undefined, value: string): string | number {
  return type === 'int' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

/**
 * GET /{realm}/authentication/required-actions/{alias}/config: `{config}`, the provider's defaults
 * (e.g. UPDATE_PASSWORD's `max_auth_age` 300) overlaid with what is stored, integers as numbers, as
 * Keycloak 26 answers (its admin client's authenticationManagement.spec.ts reads 300 before any write
 * and after a reset, and 301 after storing "301").
 */
export async function getRequiredActionConfig(ctx: RequestContext, realm: RealmModel, alias: string): Promise<Rep> {
  await requireAuthRight(ctx, realm, 'view');
  const [action, provider] = await configOf(ctx, realm, alias);
  const types = new Map(provider.properties.map((p) => [p.name, p.type]));
  const config: Record<string, unknown> = {};
  for (const p of provider.properties) if (p.defaultValue !== undefined) config[p.name] = p.defaultValue;
  for (const [k, v] of Object.entries(action.config ?? {})) config[k] = typedValue(types.get(k), String(v));
  return { config };
}

/** PUT /{realm}/authentication/required-actions/{alias}/config: merges the provider's properties from `{config}`. */
export async function updateRequiredActionConfig(ctx: RequestContext, realm: RealmModel, alias: string, body: Rep): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const [action, provider] = await configOf(ctx, realm, alias);
  const given = stringMap(body.config);
  const config = { ...(action.config ?? {}) };
  for (const p of provider.properties) {
    if (given[p.name] === undefined || given[p.name] === '') delete config[p.name];
    else config[p.name] = given[p.name];
  }
  await ctx.db.transaction(async () => {
    action.config = config;
    await action.save();
    await authEvent(ctx, realm, 'UPDATE', 'REQUIRED_ACTION_CONFIG', `required-actions/${alias}/config`, body);
  });
}

/** DELETE /{realm}/authentication/required-actions/{alias}/config: clears the stored config (the defaults apply again). */
export async function deleteRequiredActionConfig(ctx: RequestContext, realm: RealmModel, alias: string): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const [action] = await configOf(ctx, realm, alias);
  await ctx.db.transaction(async () => {
    action.config = {};
    await action.save();
    await authEvent(ctx, realm, 'DELETE', 'REQUIRED_ACTION_CONFIG', `required-actions/${alias}/config`);
  });
}
