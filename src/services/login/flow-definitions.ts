import type { VersionedRealm } from '../../auth/realm-keys';
import type { Db } from '../../db';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { keptForRealm } from '../tokens/client-config-cache';

/**
 * A realm's authentication configuration as every flow run reads it (the browser login, registration,
 * reset-credentials, the broker logins and the password grant's direct grant flow): the flows (id and
 * alias), every execution, every authenticator config and the required actions. Kept per node (per
 * database) stamped with the realm's cache version read at the start of the request
 * (`realmWithVersion`, the public endpoints' first statement): migration 0028 raises that version in
 * the transaction of every write to authentication_flow, authentication_execution,
 * authenticator_config and required_action_provider, so an entry is used only while none of them
 * changed, on this node or any other (ADR 23, ADR 40). A realm read without a version computes
 * afresh. The values are shared between requests and frozen: read them, never change them.
 */
export interface FlowDefinitions {
  flows: ReadonlyArray<{ id: string; alias: string }>;
  executions: readonly AuthExecutionModel[];
  /** Authenticator config id → its config map. */
  configs: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The stamp of what is kept for the realm under the version it was read with, or undefined (compute afresh). */
export function realmConfigStamp(realm: RealmModel): string | undefined {
  const version = (realm as VersionedRealm).cacheVersion;
  return version === undefined || version < 0 ? undefined : `${realm.id}:${version}`;
}

/** The realm's flows, executions and authenticator configs: three reads when cold, none while the realm's version holds. */
export function realmFlowDefinitions(db: Db, realm: RealmModel): Promise<FlowDefinitions> {
  return keptForRealm(db, `flows:${realm.id}`, realmConfigStamp(realm), async () => {
    const flows = await db.models.AuthFlow.findAll({ where: { realmId: realm.id }, attributes: ['id', 'alias'] });
    const executions = await db.models.AuthExecution.findAll({ where: { realmId: realm.id } });
    const configs = await db.models.AuthenticatorConfig.findAll({ where: { realmId: realm.id }, attributes: ['id', 'config'] });
    const byId: Record<string, Record<string, string>> = {};
    for (const c of configs) byId[c.id] = { ...(c.config ?? {}) };
    return { flows: flows.map((f) => ({ id: f.id, alias: f.alias })), executions, configs: byId };
  });
}

/** The id of the realm's flow with this alias, if any. */
export const flowIdByAlias = (defs: FlowDefinitions, alias: string): string | undefined => defs.flows.find((f) => f.alias === alias)?.id;

/** `id` when it names a flow of the realm (a client's binding override), else undefined. */
export const realmFlowId = (defs: FlowDefinitions, id: string | undefined): string | undefined =>
  id ? defs.flows.find((f) => f.id === id)?.id : undefined;

/** A required action of the realm (required_action_provider) as the login reads it. */
export interface RequiredActionDef {
  alias: string;
  name: string;
  providerId: string;
  enabled: boolean;
  priority: number;
  config: Readonly<Record<string, string>>;
}

/**
 * The realm's required actions, in the login's order (priority, then name): one read when cold, none
 * while the realm's version holds (required_action_provider raises it, migration 0028).
 */
export function realmRequiredActions(db: Db, realm: RealmModel): Promise<readonly RequiredActionDef[]> {
  return keptForRealm(db, `required-actions:${realm.id}`, realmConfigStamp(realm), async () => {
    const rows = await db.models.RequiredAction.findAll({ where: { realmId: realm.id } });
    return rows
      .map((r) => ({
        alias: r.alias,
        name: r.name,
        providerId: r.providerId,
        enabled: Boolean(r.enabled),
        priority: r.priority,
        config: { ...(r.config ?? {}) },
      }))
      .sort((a, b) => a.priority - b.priority || a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  });
}
