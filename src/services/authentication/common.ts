import { Op } from 'sequelize';
import type { ResourceTypeName } from '../../keycloak/event-types';
import { requireAny } from '../../auth/permissions';
import type { AuthExecutionModel, AuthFlowModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { type HttpError, errorC } from '../../core/errors';
import { type OperationType, recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import {
  type AuthenticatorConfigRep,
  type FlowRep,
  type FlowTree,
  toConfigRepresentation,
  toFlowRepresentation,
} from '../../representations/authentication';

/**
 * Shared parts of authentication management (config reference §9): Keycloak's permission sets,
 * lookups, the realm's flow tree loaded in three queries and walked in memory (rendered by
 * src/representations/authentication.ts), and the admin-event helper. Used by authentication-*.ts.
 */
export type Rep = Record<string, unknown>;

/** Keycloak's role sets: view/manage realm, plus the narrower read rights of flows, required actions and client authenticators. */
const ROLES = {
  view: ['view-realm', 'manage-realm'],
  manage: ['manage-realm'],
  viewFlows: ['view-realm', 'manage-realm', 'query-clients'],
  viewRequiredActions: ['view-realm', 'manage-realm', 'query-users'],
  viewClientAuthenticators: ['view-realm', 'manage-realm', 'query-clients', 'view-clients', 'manage-clients'],
} as const;

export type AuthRight = keyof typeof ROLES;

/** Throws 403 unless the caller holds the right (reference: `auth.realm().require...`). */
export function requireAuthRight(ctx: RequestContext, realm: RealmModel, right: AuthRight): Promise<void> {
  return requireAny(ctx, realm, ...ROLES[right]);
}

/** A flow of the realm by alias (unique index), or null. */
export function flowByAlias(ctx: RequestContext, realm: RealmModel, alias: string): Promise<AuthFlowModel | null> {
  return ctx.db.models.AuthFlow.findOne({ where: { realmId: realm.id, alias } });
}

/** A flow of the realm by id, or null. */
export async function flowById(ctx: RequestContext, realm: RealmModel, id: string): Promise<AuthFlowModel | null> {
  const flow = await ctx.db.models.AuthFlow.findByPk(id);
  return flow && flow.realmId === realm.id ? flow : null;
}

/** An execution of the realm by id, or 404 `Illegal execution`. */
export async function executionById(ctx: RequestContext, realm: RealmModel, id: string): Promise<AuthExecutionModel> {
  const exe = await ctx.db.models.AuthExecution.findByPk(id);
  if (!exe || exe.realmId !== realm.id) throw errorC(404, 'Illegal execution');
  return exe;
}

/**
 * The flow of `/flows/{id}/...` or `/flows/{alias}/...`, the parent those endpoints take: 403
 * without the right, then the endpoint's own not-found error (Keycloak's messages differ by endpoint).
 */
export async function resolveFlow(
  ctx: RequestContext,
  realm: RealmModel,
  by: { id: string } | { alias: string },
  right: AuthRight,
  notFound: () => HttpError,
): Promise<AuthFlowModel> {
  await requireAuthRight(ctx, realm, right);
  const flow = 'id' in by ? await flowById(ctx, realm, by.id) : await flowByAlias(ctx, realm, by.alias);
  if (!flow) throw notFound();
  return flow;
}

/** The execution of `/executions/{id}/...` (manage-realm, as Keycloak), or 404 `Illegal execution`. */
export async function resolveExecution(ctx: RequestContext, realm: RealmModel, id: string): Promise<AuthExecutionModel> {
  await requireAuthRight(ctx, realm, 'manage');
  return executionById(ctx, realm, id);
}

/** Executions sorted as Keycloak lists them: by priority (ties by id, stable). */
export const byPriority = (a: AuthExecutionModel, b: AuthExecutionModel) => a.priority - b.priority || (a.id < b.id ? -1 : 1);

/** Loads the realm's flow tree in three queries (flows, executions, the configs they link). */
export async function loadFlowTree(ctx: RequestContext, realm: RealmModel): Promise<FlowTree> {
  const m = ctx.db.models;
  const flows = await m.AuthFlow.findAll({
    where: { realmId: realm.id },
    order: [
      ['ord', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const executions = await m.AuthExecution.findAll({ where: { realmId: realm.id } });
  const configIds = [...new Set(executions.map((e) => e.configId).filter((c): c is string => Boolean(c)))];
  const configs = configIds.length ? await m.AuthenticatorConfig.findAll({ where: { id: { [Op.in]: configIds } } }) : [];
  const children = new Map<string, AuthExecutionModel[]>();
  for (const e of executions) {
    const list = children.get(e.parentFlowId) ?? [];
    list.push(e);
    children.set(e.parentFlowId, list);
  }
  for (const list of children.values()) list.sort(byPriority);
  return { flows, flowById: new Map(flows.map((f) => [f.id, f])), children, configById: new Map(configs.map((c) => [c.id, c])) };
}

/** The flow ids of a subtree (the roots and every sub-flow below them). */
export function subtreeFlowIds(tree: FlowTree, roots: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push(id);
    for (const e of tree.children.get(id) ?? []) if (e.subFlowId) walk(e.subFlowId);
  };
  for (const r of roots) walk(r);
  return out;
}

/** The realm's flows (sub-flows too) and authenticator configs as a realm export carries them. */
export async function exportAuthentication(
  ctx: RequestContext,
  realm: RealmModel,
): Promise<{ authenticationFlows: FlowRep[]; authenticatorConfig: AuthenticatorConfigRep[] }> {
  const tree = await loadFlowTree(ctx, realm);
  const configs = await ctx.db.models.AuthenticatorConfig.findAll({ where: { realmId: realm.id }, order: [['alias', 'ASC']] });
  return {
    authenticationFlows: tree.flows.map((f) => toFlowRepresentation(f, tree)),
    authenticatorConfig: configs.map(toConfigRepresentation),
  };
}

/** The next priority in a flow: the last execution's priority + 1, or 0 for an empty flow. */
export async function nextPriority(ctx: RequestContext, flowId: string): Promise<number> {
  const last = await ctx.db.models.AuthExecution.findOne({
    where: { parentFlowId: flowId },
    order: [['priority', 'DESC']],
    attributes: ['priority'],
  });
  return last ? last.priority + 1 : 0;
}

/**
 * raise-priority / lower-priority: swaps the priority of `rows[i]` (rows in their listed order) with
 * its neighbour above or below and saves both. False when there is no neighbour (nothing changes).
 */
export async function swapWithNeighbour(
  rows: Array<{ priority: number; save(): Promise<unknown> }>,
  i: number,
  direction: 'raise' | 'lower',
): Promise<boolean> {
  const other = rows[direction === 'raise' ? i - 1 : i + 1];
  if (i < 0 || !other) return false;
  const me = rows[i];
  const tmp = other.priority;
  other.priority = me.priority;
  me.priority = tmp;
  await other.save();
  await me.save();
  return true;
}

/** Records an admin event with a path under `authentication/` (Keycloak's request-URI paths). */
export function authEvent(
  ctx: RequestContext,
  realm: RealmModel,
  operationType: OperationType,
  resourceType: ResourceTypeName,
  path: string,
  representation?: unknown,
): Promise<void> {
  return recordAdminEvent(ctx, realm, { operationType, resourceType, resourcePath: `authentication/${path}`, representation });
}

/** Map bodies (`Map<String,String>` in Keycloak): values as strings, null kept as absent. */
export function stringMap(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return out;
  for (const [k, v] of Object.entries(body)) {
    if (v === null || v === undefined) continue;
    out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}
