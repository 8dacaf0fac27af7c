import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { AuthFlowModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { FLOW_BINDINGS, nextOrd } from '../../keycloak/auth-flow-defaults';
import type { FlowRep } from '../../representations/authentication';
import { type Rep, authEvent, flowByAlias, loadFlowTree, requireAuthRight, subtreeFlowIds } from './common';
import { checkReservedChars } from '../../core/reserved-chars';
import type { FlowTree } from '../../representations/authentication';
import { toFlowRepresentation } from '../../representations/authentication';
import type { RequestContext } from '../../core/context';
import type { Representation } from '../../representations/schema';

/**
 * Authentication flows (config reference §9.2): list, read, create, update, delete (deep, refused
 * for built-in flows and flows in use by a realm or client binding) and deep copy.
 */
export interface FlowInput {
  id?: string;
  alias?: string | null;
  description?: string | null;
  providerId?: string | null;
  topLevel?: boolean | null;
  builtIn?: boolean | null;
}

const SAML_ECP = 'saml ecp';
const emptyAlias = (op: 'create' | 'update') => errorA(409, `Failed to ${op} flow with empty alias name`);

/** GET /{realm}/authentication/flows: top-level flows except `saml ecp`, in creation order. */
export async function listFlows(ctx: RequestContext, realm: RealmModel): Promise<FlowRep[]> {
  await requireAuthRight(ctx, realm, 'viewFlows');
  const tree = await loadFlowTree(ctx, realm);
  return tree.flows.filter((f) => f.topLevel && f.alias !== SAML_ECP).map((f) => toFlowRepresentation(f, tree));
}

/** 404 `Could not find flow with id` (GET and PUT /flows/{id}). */
export const flowWithIdNotFound = () => errorC(404, 'Could not find flow with id');

/** GET /{realm}/authentication/flows/{id} (the flow resolved with view access). */
export async function getFlow(ctx: RequestContext, realm: RealmModel, flow: AuthFlowModel): Promise<FlowRep> {
  return toFlowRepresentation(flow, await loadFlowTree(ctx, realm));
}

/** POST /{realm}/authentication/flows: creates an empty flow (body executions ignored). Returns the id. */
export async function createFlow(ctx: RequestContext, realm: RealmModel, rep: FlowInput): Promise<string> {
  await requireAuthRight(ctx, realm, 'manage');
  const alias = rep.alias;
  if (typeof alias !== 'string' || !alias) throw emptyAlias('create');
  const exists = () => errorA(409, `Flow ${alias} already exists`);
  if (await flowByAlias(ctx, realm, alias)) throw exists();
  checkReservedChars(alias);
  const id = rep.id || randomUUID();
  const row = {
    id,
    realmId: realm.id,
    alias,
    description: rep.description ?? '',
    providerId: rep.providerId || 'basic-flow',
    topLevel: rep.topLevel === true,
    builtIn: rep.builtIn === true,
    ord: nextOrd(),
  };
  await write(ctx, { unique: exists }, async () => {
    await ctx.db.models.AuthFlow.create(row);
    await authEvent(ctx, realm, 'CREATE', 'AUTH_FLOW', `flows/${id}`, { ...rep, id, description: row.description });
  });
  return id;
}

/** Rewrites the realm's and identity providers' flow bindings (stored by alias) from one alias to another. Inside a transaction. */
export async function renameBindings(ctx: RequestContext, realm: RealmModel, from: string, to: string): Promise<void> {
  const idp = ctx.db.models.IdentityProvider;
  await idp.update({ firstBrokerLoginFlowAlias: to }, { where: { realmId: realm.id, firstBrokerLoginFlowAlias: from } });
  await idp.update({ postBrokerLoginFlowAlias: to }, { where: { realmId: realm.id, postBrokerLoginFlowAlias: from } });
  const fresh = await ctx.db.models.Realm.findByPk(realm.id);
  if (!fresh) return;
  const settings = { ...fresh.settings };
  const fields = Object.keys(FLOW_BINDINGS).filter((f) => settings[f] === from);
  if (!fields.length) return;
  for (const f of fields) settings[f] = to;
  fresh.settings = settings;
  await fresh.save();
  realm.settings = settings;
  invalidate.realm(ctx.loaders, realm);
}

/**
 * PUT /{realm}/authentication/flows/{id} (the flow resolved with manage access; `id` as the path
 * names it): alias, description and the flags the body carries. Returns the updated flow.
 */
export async function updateFlow(
  ctx: RequestContext,
  realm: RealmModel,
  flow: AuthFlowModel,
  rep: FlowInput,
  id = flow.id,
): Promise<FlowRep> {
  const alias = rep.alias;
  if (typeof alias !== 'string' || !alias) throw emptyAlias('update');
  checkReservedChars(alias);
  const taken = () => errorA(409, 'Flow alias name already exists');
  const other = await flowByAlias(ctx, realm, alias);
  if (other && other.id !== flow.id) throw taken();
  const oldAlias = flow.alias;
  try {
    await write(ctx, { unique: taken }, async () => {
      flow.alias = alias;
      if (rep.description !== undefined) flow.description = rep.description;
      if (rep.providerId) flow.providerId = rep.providerId;
      if (typeof rep.topLevel === 'boolean') flow.topLevel = rep.topLevel;
      if (typeof rep.builtIn === 'boolean') flow.builtIn = rep.builtIn;
      await flow.save();
      if (oldAlias !== alias) await renameBindings(ctx, realm, oldAlias, alias);
      await authEvent(ctx, realm, 'UPDATE', 'AUTH_FLOW', `flows/${id}`, { ...rep, id });
    });
  } catch (e) {
    await flow.reload().catch(() => undefined);
    throw e;
  }
  return toFlowRepresentation(flow, await loadFlowTree(ctx, realm));
}

/** True when a realm binding or a client's binding override points at one of the flows. */
async function inUse(ctx: RequestContext, realm: RealmModel, flows: AuthFlowModel[]): Promise<boolean> {
  const aliases = new Set(flows.map((f) => f.alias));
  if (Object.keys(FLOW_BINDINGS).some((field) => aliases.has(realm.settings[field] as string))) return true;
  const brokered = await ctx.db.models.IdentityProvider.count({
    where: { realmId: realm.id, [Op.or]: [{ firstBrokerLoginFlowAlias: [...aliases] }, { postBrokerLoginFlowAlias: [...aliases] }] },
  });
  if (brokered) return true;
  const ids = new Set(flows.map((f) => f.id));
  const clients = await ctx.db.models.Client.findAll({
    where: { realmId: realm.id, [Op.or]: [...ids].map((fid) => ({ settings: { [Op.like]: `%${fid}%` } })) },
    attributes: ['id', 'settings'],
  });
  return clients.some((c) => {
    const overrides = (c.settings as Representation<'ClientRepresentation'>).authenticationFlowBindingOverrides ?? {};
    return Object.values(overrides).some((v) => typeof v === 'string' && ids.has(v));
  });
}

/**
 * Deletes flows with everything below them: executions, sub-flows, their configs, and executions
 * elsewhere that point at a deleted flow. Built-in flows → 400; flows in use → 400. Inside a transaction.
 */
export async function deleteFlowTrees(
  ctx: RequestContext,
  realm: RealmModel,
  tree: FlowTree,
  roots: string[],
  builtInMessage: string,
): Promise<void> {
  const flowIds = subtreeFlowIds(tree, roots);
  const flows = flowIds.map((id) => tree.flowById.get(id)).filter((f): f is AuthFlowModel => Boolean(f));
  if (flows.some((f) => f.builtIn)) throw errorC(400, builtInMessage);
  if (await inUse(ctx, realm, flows)) throw errorC(400, 'Cannot remove authentication flow, it is currently in use');
  const executions = flowIds.flatMap((id) => tree.children.get(id) ?? []);
  const configIds = executions.map((e) => e.configId).filter((c): c is string => Boolean(c));
  const m = ctx.db.models;
  await m.AuthExecution.destroy({ where: { realmId: realm.id, [Op.or]: [{ parentFlowId: flowIds }, { subFlowId: flowIds }] } });
  if (configIds.length) {
    await m.AuthExecution.update({ configId: null }, { where: { configId: configIds } });
    await m.AuthenticatorConfig.destroy({ where: { id: configIds } });
  }
  await m.AuthFlow.destroy({ where: { id: flowIds } });
}

/** 404 `Flow not found` (DELETE /flows/{id}, GET /flows/{alias}/executions). */
export const flowNotFound = () => errorC(404, 'Flow not found');

/** DELETE /{realm}/authentication/flows/{id} (resolved with manage access): deep delete; built-in → 400 `Can't delete built in flow`. */
export async function deleteFlow(ctx: RequestContext, realm: RealmModel, flow: AuthFlowModel, id = flow.id): Promise<void> {
  await ctx.db.transaction(async () => {
    const tree = await loadFlowTree(ctx, realm);
    await deleteFlowTrees(ctx, realm, tree, [flow.id], "Can't delete built in flow");
    await authEvent(ctx, realm, 'DELETE', 'AUTH_FLOW', `flows/${id}`);
  });
}

/** POST /{realm}/authentication/flows/{alias}/copy: deep copy under `newName`. Returns the new flow id. */
export async function copyFlow(ctx: RequestContext, realm: RealmModel, alias: string, body: Record<string, string>): Promise<string> {
  await requireAuthRight(ctx, realm, 'manage');
  const newName = body.newName;
  const nameTaken = () => errorA(409, 'New flow alias name already exists');
  if (!newName) throw emptyAlias('create');
  if (await flowByAlias(ctx, realm, newName)) throw nameTaken();
  // The source is resolved here, not by the fronts: the newName checks come before its 404.
  const source = await flowByAlias(ctx, realm, alias);
  if (!source) throw flowNotFound();
  const tree = await loadFlowTree(ctx, realm);
  const flows: Rep[] = [];
  const executions: Rep[] = [];
  const configs: Rep[] = [];
  const copy = (from: AuthFlowModel, top: boolean): string => {
    const id = randomUUID();
    const flowAlias = top ? newName : `${newName} ${from.alias}`;
    flows.push({ ...rowOf(from), id, alias: flowAlias, builtIn: false, topLevel: top ? from.topLevel : false, ord: nextOrd() });
    for (const e of tree.children.get(from.id) ?? []) {
      const sub = e.subFlowId ? tree.flowById.get(e.subFlowId) : undefined;
      const config = e.configId ? tree.configById.get(e.configId) : undefined;
      let configId: string | null = null;
      if (config) {
        configId = randomUUID();
        configs.push({ id: configId, realmId: realm.id, alias: config.alias ? `${newName} ${config.alias}` : null, config: config.config });
      }
      executions.push({
        id: randomUUID(),
        realmId: realm.id,
        parentFlowId: id,
        authenticator: e.authenticator,
        authenticatorFlow: e.authenticatorFlow,
        subFlowId: sub ? copy(sub, false) : null,
        requirement: e.requirement,
        priority: e.priority,
        configId,
      });
    }
    return id;
  };
  const newId = copy(source, true);
  const takenConfigs = await ctx.db.models.AuthenticatorConfig.findAll({
    where: { realmId: realm.id, alias: configs.map((c) => c.alias as string).filter(Boolean) },
  });
  if (takenConfigs.length) throw errorA(409, `Authentication execution configuration ${takenConfigs[0].alias} already exists`);
  await write(ctx, { unique: nameTaken }, async () => {
    const m = ctx.db.models;
    await m.AuthFlow.bulkCreate(flows);
    if (configs.length) await m.AuthenticatorConfig.bulkCreate(configs);
    if (executions.length) await m.AuthExecution.bulkCreate(executions);
    await authEvent(ctx, realm, 'CREATE', 'AUTH_FLOW', `flows/${alias}/copy`, { newName, id: newId });
  });
  return newId;
}

const rowOf = (f: AuthFlowModel): Rep => ({
  realmId: f.realmId,
  description: f.description,
  providerId: f.providerId,
});
