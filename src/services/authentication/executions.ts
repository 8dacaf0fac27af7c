import { randomUUID } from 'node:crypto';
import type { AuthExecutionModel, AuthFlowModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorC } from '../../core/errors';
import { isUniqueViolation } from '../../core/db-errors';
import { nextOrd } from '../../keycloak/auth-flow-defaults';
import {
  type FlowTree,
  type Rep,
  authEvent,
  byPriority,
  executionById,
  flowByAlias,
  flowById,
  loadFlowTree,
  nextPriority,
  requireAuthRight,
  toExecutionRepresentation,
} from './common';
import { deleteFlowTrees, renameBindings } from './flows';
import { REQUIREMENTS, type Requirement, findConfigurableProvider, providersForFlowType } from '../../keycloak/authenticator-providers';
import type { RequestContext } from '../../core/context';

/**
 * Executions of authentication flows (config reference §9.3–§9.5): the flattened listing with
 * levels, indexes and requirement choices, requirement/priority updates, adding executions and
 * sub-flows, reading, deleting and moving executions. Built-in flows refuse structural changes.
 */
const SUB_FLOW_CHOICES: Record<string, Requirement[]> = {
  'basic-flow': ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'],
  'form-flow': ['REQUIRED', 'DISABLED'],
  'client-flow': ['ALTERNATIVE', 'REQUIRED', 'DISABLED'],
};

function infoRows(tree: FlowTree, flowId: string, level: number, out: Rep[]): void {
  (tree.children.get(flowId) ?? []).forEach((e, index) => {
    const base: Rep = { id: e.id, requirement: e.requirement, level, index, priority: e.priority };
    if (e.authenticatorFlow) {
      const sub = e.subFlowId ? tree.flowById.get(e.subFlowId) : undefined;
      if (!sub) return;
      const rep: Rep = { ...base, displayName: sub.alias, requirementChoices: [...(SUB_FLOW_CHOICES[sub.providerId] ?? [])] };
      if (sub.description !== null) rep.description = sub.description;
      rep.configurable = false;
      rep.authenticationFlow = true;
      if (sub.providerId === 'form-flow') {
        if (e.authenticator) rep.providerId = e.authenticator;
        if (e.configId) rep.authenticationConfig = e.configId;
      }
      rep.flowId = sub.id;
      out.push(rep);
      infoRows(tree, sub.id, level + 1, out);
      return;
    }
    const provider = findConfigurableProvider(e.authenticator ?? '');
    if (!provider) throw errorC(404, 'Could not find authenticator provider');
    const rep: Rep = { ...base, displayName: provider.displayName, configurable: provider.configurable };
    rep.requirementChoices = [...provider.requirementChoices];
    const config = e.configId ? tree.configById.get(e.configId) : undefined;
    if (provider.configurable && config?.alias) rep.alias = config.alias;
    rep.providerId = e.authenticator;
    if (e.configId) rep.authenticationConfig = e.configId;
    out.push(rep);
  });
}

/** GET /{realm}/authentication/flows/{alias}/executions: depth-first list (three queries for the whole tree). */
export async function listExecutions(ctx: RequestContext, realm: RealmModel, alias: string): Promise<Rep[]> {
  await requireAuthRight(ctx, realm, 'view');
  const tree = await loadFlowTree(ctx, realm);
  const flow = tree.flows.find((f) => f.alias === alias);
  if (!flow) throw errorC(404, 'Flow not found');
  const out: Rep[] = [];
  infoRows(tree, flow.id, 0, out);
  return out;
}

function requirementOf(value: unknown): Requirement {
  if (typeof value !== 'string' || !REQUIREMENTS.includes(value as Requirement)) throw errorC(400, 'HTTP 400 Bad Request');
  return value as Requirement;
}

/** PUT /{realm}/authentication/flows/{alias}/executions: requirement/priority, else a sub-flow's alias and description. */
export async function updateExecution(ctx: RequestContext, realm: RealmModel, alias: string, rep: Rep): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  if (!(await flowByAlias(ctx, realm, alias))) throw errorC(404, 'flow not found');
  const exe = await executionById(ctx, realm, String(rep.id ?? ''));
  const path = `flows/${alias}/executions`;
  const priorityChanged = typeof rep.priority === 'number' && rep.priority !== exe.priority;
  if (priorityChanged || (rep.requirement !== undefined && rep.requirement !== exe.requirement)) {
    const requirement = rep.requirement === undefined ? exe.requirement : requirementOf(rep.requirement);
    await ctx.db.transaction(async () => {
      exe.requirement = requirement;
      if (priorityChanged) exe.priority = rep.priority as number;
      await exe.save();
      await authEvent(ctx, realm, 'UPDATE', 'AUTH_EXECUTION', path, rep);
    });
    return;
  }
  if (rep.authenticationFlow === undefined || rep.authenticationFlow === null) return;
  const sub = await flowById(ctx, realm, String(rep.flowId ?? ''));
  if (!sub) throw errorC(404, 'Illegal execution');
  const taken = () => errorA(409, 'Flow alias name already exists');
  const displayName = typeof rep.displayName === 'string' && rep.displayName ? rep.displayName : sub.alias;
  const other = await flowByAlias(ctx, realm, displayName);
  if (other && other.id !== sub.id) throw taken();
  try {
    await ctx.db.transaction(async () => {
      const oldAlias = sub.alias;
      sub.alias = displayName;
      if (rep.description !== undefined) sub.description = (rep.description as string | null) ?? '';
      await sub.save();
      if (oldAlias !== displayName) await renameBindings(ctx, realm, oldAlias, displayName);
      await authEvent(ctx, realm, 'UPDATE', 'AUTH_EXECUTION', path, rep);
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw taken();
    throw e;
  }
}

const parsePriority = (v: unknown): number | undefined => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined);

/** The provider an execution of `parent` may use, or 400 `No authentication provider found for id: x`. */
function providerFor(parent: AuthFlowModel, id: unknown) {
  const p = providersForFlowType(parent.providerId).find((x) => x.id === id);
  if (!p) throw errorC(400, `No authentication provider found for id: ${id === undefined || id === null ? 'null' : String(id)}`);
  return p;
}

/** POST /{realm}/authentication/flows/{alias}/executions/execution: adds an authenticator. Returns the execution id. */
export async function addExecutionToFlow(
  ctx: RequestContext,
  realm: RealmModel,
  alias: string,
  body: Record<string, string>,
): Promise<string> {
  await requireAuthRight(ctx, realm, 'manage');
  const parent = await flowByAlias(ctx, realm, alias);
  if (!parent) throw errorC(400, "Parent flow doesn't exist");
  if (parent.builtIn) throw errorC(400, 'It is illegal to add execution to a built in flow');
  const provider = providerFor(parent, body.provider);
  const id = randomUUID();
  await ctx.db.transaction(async () => {
    await ctx.db.models.AuthExecution.create({
      id,
      realmId: realm.id,
      parentFlowId: parent.id,
      authenticator: provider.id,
      authenticatorFlow: false,
      subFlowId: null,
      requirement: provider.requirementChoices.length === 1 ? provider.requirementChoices[0] : 'DISABLED',
      priority: parsePriority(body.priority) ?? (await nextPriority(ctx, parent.id)),
      configId: null,
    });
    await authEvent(ctx, realm, 'CREATE', 'AUTH_EXECUTION', `flows/${alias}/executions/execution`, { ...body, id });
  });
  return id;
}

/** POST /{realm}/authentication/flows/{alias}/executions/flow: adds a sub-flow (DISABLED). Returns the new flow id. */
export async function addSubFlow(ctx: RequestContext, realm: RealmModel, alias: string, body: Record<string, string>): Promise<string> {
  await requireAuthRight(ctx, realm, 'manage');
  const parent = await flowByAlias(ctx, realm, alias);
  if (!parent) throw errorA(400, "Parent flow doesn't exist");
  if (parent.builtIn) throw errorC(400, 'It is illegal to add sub-flow to a built in flow');
  const subAlias = body.alias;
  if (!subAlias) throw errorA(409, 'Failed to create flow with empty alias name');
  const taken = () => errorA(409, 'New flow alias name already exists');
  if (await flowByAlias(ctx, realm, subAlias)) throw taken();
  const type = body.type || 'basic-flow';
  const flowId = randomUUID();
  const exeId = randomUUID();
  try {
    await ctx.db.transaction(async () => {
      const m = ctx.db.models;
      const description = body.description ?? '';
      await m.AuthFlow.create({ id: flowId, realmId: realm.id, alias: subAlias, description, providerId: type, ord: nextOrd() });
      await m.AuthExecution.create({
        id: exeId,
        realmId: realm.id,
        parentFlowId: parent.id,
        authenticator: type === 'form-flow' ? (body.provider ?? null) : null,
        authenticatorFlow: true,
        subFlowId: flowId,
        requirement: 'DISABLED',
        priority: parsePriority(body.priority) ?? (await nextPriority(ctx, parent.id)),
        configId: null,
      });
      await authEvent(ctx, realm, 'CREATE', 'AUTH_EXECUTION_FLOW', `flows/${alias}/executions/flow`, { ...body, id: exeId });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw taken();
    throw e;
  }
  return flowId;
}

/** POST /{realm}/authentication/executions: a raw AuthenticationExecutionRepresentation. Returns the id. */
export async function addExecution(ctx: RequestContext, realm: RealmModel, rep: Rep): Promise<string> {
  await requireAuthRight(ctx, realm, 'manage');
  if (!rep.parentFlow) throw errorC(400, 'parent flow not set on new execution');
  const parent = await flowById(ctx, realm, String(rep.parentFlow));
  if (!parent) throw errorC(400, 'execution parent flow does not exist');
  if (parent.builtIn) throw errorC(400, 'It is illegal to add execution to a built in flow');
  const requirement = requirementOf(rep.requirement);
  const isFlow = rep.authenticatorFlow === true || rep.autheticatorFlow === true;
  if (!isFlow) providerFor(parent, rep.authenticator);
  if (isFlow && !(await flowById(ctx, realm, String(rep.flowId ?? '')))) throw errorC(400, 'HTTP 400 Bad Request');
  let configId: string | null = null;
  if (rep.authenticatorConfig) {
    const config = await ctx.db.models.AuthenticatorConfig.findByPk(String(rep.authenticatorConfig));
    if (!config || config.realmId !== realm.id) throw errorC(400, 'Could not find authenticator config');
    configId = config.id;
  }
  const id = typeof rep.id === 'string' && rep.id ? rep.id : randomUUID();
  await ctx.db.transaction(async () => {
    await ctx.db.models.AuthExecution.create({
      id,
      realmId: realm.id,
      parentFlowId: parent.id,
      authenticator: (rep.authenticator as string | undefined) ?? null,
      authenticatorFlow: isFlow,
      subFlowId: isFlow ? String(rep.flowId) : null,
      requirement,
      priority: await nextPriority(ctx, parent.id),
      configId,
    });
    await authEvent(ctx, realm, 'CREATE', 'AUTH_EXECUTION', `executions/${id}`, { ...rep, id });
  });
  return id;
}

/** GET /{realm}/authentication/executions/{id} (manage-realm, as Keycloak). */
export async function getExecution(ctx: RequestContext, realm: RealmModel, id: string): Promise<Rep> {
  await requireAuthRight(ctx, realm, 'manage');
  return toExecutionRepresentation(await executionById(ctx, realm, id));
}

async function parentOf(ctx: RequestContext, realm: RealmModel, exe: AuthExecutionModel, builtInMessage: string): Promise<AuthFlowModel> {
  const parent = await flowById(ctx, realm, exe.parentFlowId);
  if (!parent) throw errorC(400, 'execution parent flow does not exist');
  if (parent.builtIn) throw errorC(400, builtInMessage);
  return parent;
}

/** DELETE /{realm}/authentication/executions/{id}: with its sub-flow (deep) and its config. */
export async function deleteExecution(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const exe = await executionById(ctx, realm, id);
  const message = 'It is illegal to remove execution from a built in flow';
  await parentOf(ctx, realm, exe, message);
  await ctx.db.transaction(async () => {
    const m = ctx.db.models;
    if (exe.subFlowId) await deleteFlowTrees(ctx, realm, await loadFlowTree(ctx, realm), [exe.subFlowId], message);
    await m.AuthExecution.destroy({ where: { id: exe.id } });
    if (exe.configId) {
      await m.AuthExecution.update({ configId: null }, { where: { configId: exe.configId } });
      await m.AuthenticatorConfig.destroy({ where: { id: exe.configId } });
    }
    await authEvent(ctx, realm, 'DELETE', 'AUTH_EXECUTION', `executions/${id}`);
  });
}

/** POST /{realm}/authentication/executions/{id}/raise-priority | lower-priority: swaps with the neighbour. */
export async function moveExecution(ctx: RequestContext, realm: RealmModel, id: string, direction: 'raise' | 'lower'): Promise<void> {
  await requireAuthRight(ctx, realm, 'manage');
  const exe = await executionById(ctx, realm, id);
  const parent = await parentOf(ctx, realm, exe, 'It is illegal to modify execution in a built in flow');
  await ctx.db.transaction(async () => {
    const siblings = (await ctx.db.models.AuthExecution.findAll({ where: { parentFlowId: parent.id } })).sort(byPriority);
    const i = siblings.findIndex((s) => s.id === exe.id);
    const other = siblings[direction === 'raise' ? i - 1 : i + 1];
    if (i < 0 || !other) return;
    const me = siblings[i];
    const tmp = other.priority;
    other.priority = me.priority;
    me.priority = tmp;
    await other.save();
    await me.save();
    await authEvent(ctx, realm, 'UPDATE', 'AUTH_EXECUTION', `executions/${id}/${direction}-priority`);
  });
}
