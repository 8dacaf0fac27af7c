import { Op } from 'sequelize';
import { requireAny } from '../../auth/permissions';
import type { AuthExecutionModel, AuthFlowModel, AuthenticatorConfigModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { errorC } from '../../core/errors';
import { type OperationType, recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';

/**
 * Shared parts of authentication management (config reference §9): Keycloak's permission sets,
 * lookups, the realm's flow tree loaded in three queries and walked in memory, the JSON
 * representations, and the admin-event helper. Used by authentication-*.ts.
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

/** Throws 403 unless the caller holds the right (reference: `auth.realm().require...`). */
export function requireAuthRight(ctx: RequestContext, realm: RealmModel, right: keyof typeof ROLES): Promise<void> {
  return requireAny(ctx, realm, ...ROLES[right]);
}

const RESERVED = /[:/?#@!$&()*+,;=[\]\\]/;

/** Keycloak's ReservedCharValidator: 400 `Character 'x' not allowed.` (null passes). */
export function checkReservedChars(value: unknown): void {
  if (typeof value !== 'string') return;
  const bad = value.match(RESERVED);
  if (bad) throw errorC(400, `Character '${bad[0]}' not allowed.`);
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

/** Executions sorted as Keycloak lists them: by priority (ties by id, stable). */
export const byPriority = (a: AuthExecutionModel, b: AuthExecutionModel) => a.priority - b.priority || (a.id < b.id ? -1 : 1);

/** The realm's flows, executions and configs, indexed for walking trees in memory. */
export interface FlowTree {
  flows: AuthFlowModel[];
  flowById: Map<string, AuthFlowModel>;
  children: Map<string, AuthExecutionModel[]>;
  configById: Map<string, AuthenticatorConfigModel>;
}

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
): Promise<{ authenticationFlows: Rep[]; authenticatorConfig: Rep[] }> {
  const tree = await loadFlowTree(ctx, realm);
  const configs = await ctx.db.models.AuthenticatorConfig.findAll({ where: { realmId: realm.id }, order: [['alias', 'ASC']] });
  return {
    authenticationFlows: tree.flows.map((f) => toFlowRepresentation(f, tree)),
    authenticatorConfig: configs.map(toConfigRepresentation),
  };
}

/** AuthenticationExecutionExportRepresentation (inside a flow representation). */
function toExportRepresentation(e: AuthExecutionModel, tree: FlowTree): Rep {
  const out: Rep = {};
  const config = e.configId ? tree.configById.get(e.configId) : undefined;
  if (config?.alias) out.authenticatorConfig = config.alias;
  if (e.authenticator) out.authenticator = e.authenticator;
  out.authenticatorFlow = e.authenticatorFlow;
  const sub = e.subFlowId ? tree.flowById.get(e.subFlowId) : undefined;
  if (sub) out.flowAlias = sub.alias;
  out.priority = e.priority;
  out.userSetupAllowed = false;
  out.requirement = e.requirement;
  out.autheticatorFlow = e.authenticatorFlow;
  return out;
}

/** AuthenticationFlowRepresentation with its executions (sorted by priority). */
export function toFlowRepresentation(flow: AuthFlowModel, tree: FlowTree): Rep {
  const out: Rep = { id: flow.id, alias: flow.alias };
  if (flow.description !== null && flow.description !== undefined) out.description = flow.description;
  out.providerId = flow.providerId;
  out.topLevel = flow.topLevel;
  out.builtIn = flow.builtIn;
  out.authenticationExecutions = (tree.children.get(flow.id) ?? []).map((e) => toExportRepresentation(e, tree));
  return out;
}

/** AuthenticationExecutionRepresentation (GET /executions/{id}). */
export function toExecutionRepresentation(e: AuthExecutionModel): Rep {
  const out: Rep = { id: e.id };
  if (e.authenticator) out.authenticator = e.authenticator;
  if (e.configId) out.authenticatorConfig = e.configId;
  out.authenticatorFlow = e.authenticatorFlow;
  if (e.subFlowId) out.flowId = e.subFlowId;
  out.parentFlow = e.parentFlowId;
  out.priority = e.priority;
  out.requirement = e.requirement;
  return out;
}

/** AuthenticatorConfigRepresentation. */
export function toConfigRepresentation(c: AuthenticatorConfigModel): Rep {
  const out: Rep = { id: c.id };
  if (c.alias !== null) out.alias = c.alias;
  out.config = c.config ?? {};
  return out;
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

/** Records an admin event with a path under `authentication/` (Keycloak's request-URI paths). */
export function authEvent(
  ctx: RequestContext,
  realm: RealmModel,
  operationType: OperationType,
  resourceType: string,
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
