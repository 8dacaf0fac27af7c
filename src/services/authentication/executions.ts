import { randomUUID } from 'node:crypto';
import type { AuthExecutionModel, AuthFlowModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import {
  type ExecutionInfoRep,
  type ExecutionRep,
  toExecutionInfoRepresentations,
  toExecutionRepresentation,
} from '../../representations/authentication';
import { nextOrd } from '../../keycloak/auth-flow-defaults';
import {
  type Rep,
  authEvent,
  byPriority,
  executionById,
  flowByAlias,
  flowById,
  loadFlowTree,
  nextPriority,
  requireAuthRight,
  swapWithNeighbour,
} from './common';
import { deleteFlowTrees, flowNotFound, renameBindings } from './flows';
import { REQUIREMENTS, type Requirement, providersForFlowType } from '../../keycloak/authenticator-providers';
import type { RequestContext } from '../../core/context';

/**
 * Executions of authentication flows (config reference §9.3–§9.5): the flattened listing with
 * levels, indexes and requirement choices, requirement/priority updates, adding executions and
 * sub-flows, reading, deleting and moving executions. Built-in flows refuse structural changes.
 */
/** GET /{realm}/authentication/flows/{alias}/executions: depth-first list (three queries for the whole tree). */
export async function listExecutions(ctx: RequestContext, realm: RealmModel, alias: string): Promise<ExecutionInfoRep[]> {
  await requireAuthRight(ctx, realm, 'view');
  // The flow is found in the tree the listing loads anyway (exact alias match), not resolved by the fronts.
  const tree = await loadFlowTree(ctx, realm);
  const flow = tree.flows.find((f) => f.alias === alias);
  if (!flow) throw flowNotFound();
  return toExecutionInfoRepresentations(tree, flow.id);
}

function requirementOf(value: unknown): Requirement {
  if (typeof value !== 'string' || !REQUIREMENTS.includes(value as Requirement)) throw errorC(400, 'HTTP 400 Bad Request');
  return value as Requirement;
}

/** 404 `flow not found` (PUT /flows/{alias}/executions). */
export const executionsFlowNotFound = () => errorC(404, 'flow not found');

/**
 * PUT /{realm}/authentication/flows/{alias}/executions (the flow resolved with manage access; `alias`
 * as the path names it): requirement/priority, else a sub-flow's alias and description.
 */
export async function updateExecution(
  ctx: RequestContext,
  realm: RealmModel,
  flow: AuthFlowModel,
  rep: Rep,
  alias = flow.alias,
): Promise<void> {
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
  await write(ctx, { unique: taken }, async () => {
    const oldAlias = sub.alias;
    sub.alias = displayName;
    if (rep.description !== undefined) sub.description = (rep.description as string | null) ?? '';
    await sub.save();
    if (oldAlias !== displayName) await renameBindings(ctx, realm, oldAlias, displayName);
    await authEvent(ctx, realm, 'UPDATE', 'AUTH_EXECUTION', path, rep);
  });
}

const parsePriority = (v: unknown): number | undefined => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined);

/** The provider an execution of `parent` may use, or 400 `No authentication provider found for id: x`. */
function providerFor(parent: AuthFlowModel, id: unknown) {
  const p = providersForFlowType(parent.providerId).find((x) => x.id === id);
  if (!p) throw errorC(400, `No authentication provider found for id: ${id === undefined || id === null ? 'null' : String(id)}`);
  return p;
}

/** 400 `Parent flow doesn't exist` of POST /flows/{alias}/executions/execution. */
export const executionParentNotFound = () => errorC(400, "Parent flow doesn't exist");

/**
 * POST /{realm}/authentication/flows/{alias}/executions/execution (the parent resolved with manage
 * access): adds an authenticator. Returns the execution id.
 */
export async function addExecutionToFlow(
  ctx: RequestContext,
  realm: RealmModel,
  parent: AuthFlowModel,
  body: Record<string, string>,
  alias = parent.alias,
): Promise<string> {
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

/** 400 `Parent flow doesn't exist` of POST /flows/{alias}/executions/flow (Keycloak's other error shape). */
export const subFlowParentNotFound = () => errorA(400, "Parent flow doesn't exist");

/**
 * POST /{realm}/authentication/flows/{alias}/executions/flow (the parent resolved with manage access):
 * adds a sub-flow (DISABLED). Returns the new flow id.
 */
export async function addSubFlow(
  ctx: RequestContext,
  realm: RealmModel,
  parent: AuthFlowModel,
  body: Record<string, string>,
  alias = parent.alias,
): Promise<string> {
  if (parent.builtIn) throw errorC(400, 'It is illegal to add sub-flow to a built in flow');
  const subAlias = body.alias;
  if (!subAlias) throw errorA(409, 'Failed to create flow with empty alias name');
  const taken = () => errorA(409, 'New flow alias name already exists');
  if (await flowByAlias(ctx, realm, subAlias)) throw taken();
  const type = body.type || 'basic-flow';
  const flowId = randomUUID();
  const exeId = randomUUID();
  await write(ctx, { unique: taken }, async () => {
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

/** GET /{realm}/authentication/executions/{id} (the execution resolved with manage-realm, as Keycloak). */
export function getExecution(exe: AuthExecutionModel): ExecutionRep {
  return toExecutionRepresentation(exe);
}

async function parentOf(ctx: RequestContext, realm: RealmModel, exe: AuthExecutionModel, builtInMessage: string): Promise<AuthFlowModel> {
  const parent = await flowById(ctx, realm, exe.parentFlowId);
  if (!parent) throw errorC(400, 'execution parent flow does not exist');
  if (parent.builtIn) throw errorC(400, builtInMessage);
  return parent;
}

/** DELETE /{realm}/authentication/executions/{id} (resolved, manage): with its sub-flow (deep) and its config. */
export async function deleteExecution(ctx: RequestContext, realm: RealmModel, exe: AuthExecutionModel, id = exe.id): Promise<void> {
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

/** POST /{realm}/authentication/executions/{id}/raise-priority | lower-priority (resolved, manage): swaps with the neighbour. */
export async function moveExecution(
  ctx: RequestContext,
  realm: RealmModel,
  exe: AuthExecutionModel,
  direction: 'raise' | 'lower',
  id = exe.id,
): Promise<void> {
  const parent = await parentOf(ctx, realm, exe, 'It is illegal to modify execution in a built in flow');
  await ctx.db.transaction(async () => {
    const siblings = (await ctx.db.models.AuthExecution.findAll({ where: { parentFlowId: parent.id } })).sort(byPriority);
    if (
      !(await swapWithNeighbour(
        siblings,
        siblings.findIndex((s) => s.id === exe.id),
        direction,
      ))
    )
      return;
    await authEvent(ctx, realm, 'UPDATE', 'AUTH_EXECUTION', `executions/${id}/${direction}-priority`);
  });
}
