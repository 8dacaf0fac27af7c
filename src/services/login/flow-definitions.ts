import type { VersionedRealm } from '../../auth/realm-keys';
import type { Db } from '../../db';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import { keptForRealm } from '../tokens/client-config-cache';

/**
 * A realm's authentication flows as the flow engine reads them: the flows (id and alias), every
 * execution and every authenticator config. Kept per node (per database) stamped with the realm's
 * cache version read at the start of the request (`realmWithVersion`): migration 0028 raises that
 * version in the transaction of every write to authentication_flow, authentication_execution and
 * authenticator_config, so an entry is used only while none of them changed, on this node or any
 * other (ADR 23, ADR 40). A realm read without a version computes afresh. The values are shared
 * between requests and frozen: read them, never change them.
 */
export interface FlowDefinitions {
  flows: ReadonlyArray<{ id: string; alias: string }>;
  executions: readonly AuthExecutionModel[];
  /** Authenticator config id → its config map. */
  configs: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The realm's flows, executions and authenticator configs: three reads when cold, none while the realm's version holds. */
export function realmFlowDefinitions(db: Db, realm: RealmModel): Promise<FlowDefinitions> {
  const version = (realm as VersionedRealm).cacheVersion;
  const stamp = version === undefined || version < 0 ? undefined : `${realm.id}:${version}`;
  return keptForRealm(db, `flows:${realm.id}`, stamp, async () => {
    const flows = await db.models.AuthFlow.findAll({ where: { realmId: realm.id }, attributes: ['id', 'alias'] });
    const executions = await db.models.AuthExecution.findAll({ where: { realmId: realm.id } });
    const configs = await db.models.AuthenticatorConfig.findAll({ where: { realmId: realm.id }, attributes: ['id', 'config'] });
    const byId: Record<string, Record<string, string>> = {};
    for (const c of configs) byId[c.id] = { ...(c.config ?? {}) };
    return { flows: flows.map((f) => ({ id: f.id, alias: f.alias })), executions, configs: byId };
  });
}
