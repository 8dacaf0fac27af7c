import type { AuthExecutionModel, AuthFlowModel, AuthenticatorConfigModel } from '../db/models/authentication';
import { errorC } from '../core/errors';
import { type Requirement, findConfigurableProvider } from '../keycloak/authenticator-providers';
import type { Representation } from './schema';

/**
 * Authentication representations (config reference §9): flows with their exported executions,
 * executions, the flattened execution info list of a flow, and authenticator configs. Flows are
 * rendered from the realm's flow tree, loaded once and walked in memory.
 */
export type FlowRep = Representation<'AuthenticationFlowRepresentation'>;
export type ExecutionRep = Representation<'AuthenticationExecutionRepresentation'>;
export type ExecutionExportRep = Representation<'AuthenticationExecutionExportRepresentation'>;
export type ExecutionInfoRep = Representation<'AuthenticationExecutionInfoRepresentation'>;
export type AuthenticatorConfigRep = Representation<'AuthenticatorConfigRepresentation'>;

/** The realm's flows, executions and configs, indexed for walking trees in memory. */
export interface FlowTree {
  flows: AuthFlowModel[];
  flowById: Map<string, AuthFlowModel>;
  children: Map<string, AuthExecutionModel[]>;
  configById: Map<string, AuthenticatorConfigModel>;
}

/** AuthenticationExecutionExportRepresentation (inside a flow representation). */
function toExportRepresentation(e: AuthExecutionModel, tree: FlowTree): ExecutionExportRep {
  const out: ExecutionExportRep = {};
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
export function toFlowRepresentation(flow: AuthFlowModel, tree: FlowTree): FlowRep {
  const out: FlowRep = { id: flow.id, alias: flow.alias };
  if (flow.description !== null && flow.description !== undefined) out.description = flow.description;
  out.providerId = flow.providerId;
  out.topLevel = flow.topLevel;
  out.builtIn = flow.builtIn;
  out.authenticationExecutions = (tree.children.get(flow.id) ?? []).map((e) => toExportRepresentation(e, tree));
  return out;
}

/** AuthenticationExecutionRepresentation (GET /executions/{id}). */
export function toExecutionRepresentation(e: AuthExecutionModel): ExecutionRep {
  const out: ExecutionRep = { id: e.id };
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
export function toConfigRepresentation(c: AuthenticatorConfigModel): AuthenticatorConfigRep {
  const out: AuthenticatorConfigRep = { id: c.id };
  if (c.alias !== null) out.alias = c.alias;
  out.config = c.config ?? {};
  return out;
}

/** The requirements a sub-flow execution may take, by the sub-flow's type. */
const SUB_FLOW_CHOICES: Record<string, Requirement[]> = {
  'basic-flow': ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'],
  'form-flow': ['REQUIRED', 'DISABLED'],
  'client-flow': ['ALTERNATIVE', 'REQUIRED', 'DISABLED'],
};

/**
 * AuthenticationExecutionInfoRepresentations of a flow, depth first with levels and indexes
 * (GET /flows/{alias}/executions); an authenticator the server does not know → 404.
 */
export function toExecutionInfoRepresentations(
  tree: FlowTree,
  flowId: string,
  level = 0,
  out: ExecutionInfoRep[] = [],
): ExecutionInfoRep[] {
  (tree.children.get(flowId) ?? []).forEach((e, index) => {
    const base: ExecutionInfoRep = { id: e.id, requirement: e.requirement, level, index, priority: e.priority };
    if (e.authenticatorFlow) {
      const sub = e.subFlowId ? tree.flowById.get(e.subFlowId) : undefined;
      if (!sub) return;
      const rep: ExecutionInfoRep = { ...base, displayName: sub.alias, requirementChoices: [...(SUB_FLOW_CHOICES[sub.providerId] ?? [])] };
      if (sub.description !== null) rep.description = sub.description;
      rep.configurable = false;
      rep.authenticationFlow = true;
      if (sub.providerId === 'form-flow') {
        if (e.authenticator) rep.providerId = e.authenticator;
        if (e.configId) rep.authenticationConfig = e.configId;
      }
      rep.flowId = sub.id;
      out.push(rep);
      toExecutionInfoRepresentations(tree, sub.id, level + 1, out);
      return;
    }
    const provider = findConfigurableProvider(e.authenticator ?? '');
    if (!provider) throw errorC(404, 'Could not find authenticator provider');
    const rep: ExecutionInfoRep = { ...base, displayName: provider.displayName, configurable: provider.configurable };
    rep.requirementChoices = [...provider.requirementChoices];
    const config = e.configId ? tree.configById.get(e.configId) : undefined;
    if (provider.configurable && config?.alias) rep.alias = config.alias;
    rep.providerId = e.authenticator;
    if (e.configId) rep.authenticationConfig = e.configId;
    out.push(rep);
  });
  return out;
}
