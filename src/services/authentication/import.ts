import { randomUUID } from 'node:crypto';
import { MASTER } from '../../auth/permissions';
import { deleteRealmAuthenticationRows } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { badRequest } from '../../core/errors';
import { BUILT_IN_FLOW_ALIASES, builtInAliases, builtInFlowRows, nextOrd } from '../../keycloak/auth-flow-defaults';
import { type Rep, stringMap } from './common';
import { REQUIREMENTS, type Requirement } from '../../keycloak/authenticator-providers';
import type { RequestContext } from '../../core/context';

/**
 * `authenticationFlows`, `authenticatorConfig` and `requiredActions` of a realm representation on
 * import (POST /admin/realms). As Keycloak: given required actions replace the default set; given
 * flows (with their executions and configs) replace the built-in ones, then every built-in top-level
 * flow whose alias is still missing is added. Runs inside the realm-creation transaction.
 */
const list = (v: unknown): Rep[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object' && !Array.isArray(x)) as Rep[]) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

async function importRequiredActions(ctx: RequestContext, realm: RealmModel, actions: Rep[]): Promise<void> {
  const seen = new Set<string>();
  const rows = actions.map((a) => {
    const alias = str(a.alias) ?? str(a.providerId);
    if (!alias) throw badRequest('Required action alias is missing');
    if (seen.has(alias)) throw badRequest(`Duplicate required action ${alias}`);
    seen.add(alias);
    return {
      id: randomUUID(),
      realmId: realm.id,
      alias,
      name: str(a.name) ?? alias,
      providerId: str(a.providerId) ?? alias,
      enabled: a.enabled === true,
      defaultAction: a.defaultAction === true,
      priority: typeof a.priority === 'number' ? Math.trunc(a.priority) : 0,
      config: stringMap(a.config),
    };
  });
  await ctx.db.models.RequiredAction.destroy({ where: { realmId: realm.id } });
  if (rows.length) await ctx.db.models.RequiredAction.bulkCreate(rows);
}

async function importFlows(
  ctx: RequestContext,
  realm: RealmModel,
  flowReps: Rep[],
  configReps: Rep[],
  remap: Map<string, string>,
): Promise<void> {
  const configIds = new Map<string, string>();
  const configs = configReps.map((c) => {
    const alias = str(c.alias);
    if (alias && configIds.has(alias)) throw badRequest(`Duplicate authenticator config ${alias}`);
    const id = randomUUID();
    if (alias) configIds.set(alias, id);
    return { id, realmId: realm.id, alias: alias ?? null, config: stringMap(c.config) };
  });
  const flowIds = new Map<string, string>();
  // A flow keeps its id when no flow has it yet (client binding overrides name flows by id); an export
  // imported again on the same server gets new ids, remapped for the overrides.
  const wanted = flowReps.map((f) => str(f.id)).filter((id): id is string => Boolean(id));
  const taken = new Set(
    wanted.length ? (await ctx.db.models.AuthFlow.findAll({ where: { id: wanted }, attributes: ['id'] })).map((f) => f.id) : [],
  );
  const flows = flowReps.map((f) => {
    const alias = str(f.alias);
    if (!alias) throw badRequest('Authentication flow alias is missing');
    if (flowIds.has(alias)) throw badRequest(`Duplicate authentication flow ${alias}`);
    const given = str(f.id);
    const id = given && !taken.has(given) ? given : randomUUID();
    if (given) taken.add(given);
    if (given) remap.set(given, id);
    flowIds.set(alias, id);
    const description = typeof f.description === 'string' ? f.description : null;
    return {
      id,
      realmId: realm.id,
      alias,
      description,
      providerId: str(f.providerId) ?? 'basic-flow',
      topLevel: f.topLevel === true,
      builtIn: f.builtIn === true,
      ord: nextOrd(),
    };
  });
  const executions = flowReps.flatMap((f) =>
    list(f.authenticationExecutions).map((e) => {
      const isFlow = e.authenticatorFlow === true || e.autheticatorFlow === true;
      const subAlias = str(e.flowAlias);
      const subFlowId = isFlow && subAlias ? flowIds.get(subAlias) : undefined;
      if (isFlow && !subFlowId) throw badRequest(`Unknown sub-flow ${subAlias ?? 'null'} in flow ${f.alias}`);
      const configAlias = str(e.authenticatorConfig);
      const configId = configAlias ? configIds.get(configAlias) : undefined;
      if (configAlias && !configId) throw badRequest(`Unknown authenticator config ${configAlias} in flow ${f.alias}`);
      const requirement = e.requirement ?? 'DISABLED';
      if (!REQUIREMENTS.includes(requirement as Requirement))
        throw badRequest(`Invalid requirement ${String(requirement)} in flow ${f.alias}`);
      return {
        id: randomUUID(),
        realmId: realm.id,
        parentFlowId: flowIds.get(f.alias as string),
        authenticator: str(e.authenticator) ?? null,
        authenticatorFlow: isFlow,
        subFlowId: subFlowId ?? null,
        requirement,
        priority: typeof e.priority === 'number' ? Math.trunc(e.priority) : 0,
        configId: configId ?? null,
      };
    }),
  );
  // Built-in top-level flows the representation lacks, unless one of their aliases is taken.
  const isMaster = realm.name === MASTER;
  const missing = BUILT_IN_FLOW_ALIASES.filter((a) => {
    if (flowIds.has(a)) return false;
    const aliases = builtInAliases(a, isMaster);
    return !aliases.flows.some((x) => flowIds.has(x)) && !aliases.configs.some((x) => configIds.has(x));
  });
  const defaults = builtInFlowRows(realm.id, isMaster, missing);
  const m = ctx.db.models;
  await deleteRealmAuthenticationRows(ctx.db.sequelize, realm.id);
  await m.AuthFlow.bulkCreate([...flows, ...defaults.flows]);
  await m.AuthenticatorConfig.bulkCreate([...configs, ...defaults.configs]);
  await m.AuthExecution.bulkCreate([...executions, ...defaults.executions]);
}

/**
 * Imports the authentication parts of a realm representation into a new realm (defaults replaced
 * where given). Returns representation flow id → stored flow id, for the clients' binding overrides.
 */
export async function importAuthentication(ctx: RequestContext, realm: RealmModel, rep: Rep): Promise<Map<string, string>> {
  const remap = new Map<string, string>();
  if (Array.isArray(rep.requiredActions)) await importRequiredActions(ctx, realm, list(rep.requiredActions));
  if (Array.isArray(rep.authenticationFlows))
    await importFlows(ctx, realm, list(rep.authenticationFlows), list(rep.authenticatorConfig), remap);
  return remap;
}

/** Clients of a representation with their flow binding overrides pointing at the imported flows. */
export function withImportedFlowIds(clients: Rep[], remap: Map<string, string>): Rep[] {
  return clients.map((c) => {
    const overrides = c.authenticationFlowBindingOverrides;
    if (!overrides || typeof overrides !== 'object' || Array.isArray(overrides)) return c;
    const mapped = Object.fromEntries(Object.entries(overrides as Rep).map(([k, v]) => [k, remap.get(String(v)) ?? v]));
    return { ...c, authenticationFlowBindingOverrides: mapped };
  });
}
