import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { errorC, notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { ClientSettings } from '../../representations/client';
import { requireClientAccess } from './clients';
import type { RequestContext } from '../../core/context';
import { saveClient } from './client-writes';

/**
 * Cluster nodes of a client (config reference §1.9, nodes part): `registeredNodes` (node → epoch
 * seconds) in the client's settings; `test-nodes-available` pings each node's admin URL. Also the
 * FGAP v1 management-permissions endpoints, which answer 501 as Keycloak with the feature off.
 */
export interface GlobalRequestResult {
  successRequests?: string[];
  failedRequests?: string[];
}

const RESERVED = /[:/?#@!$&()*+,;=[\]\\<>%"' ]/;

const nodesOf = (s: ClientSettings) => ({ ...((s.registeredNodes as Record<string, number> | undefined) ?? {}) });

/** POST /clients/{id}/nodes `{node}`: registers a node with the current time (configure of the client). */
export async function registerClientNode(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  body: { node?: unknown } | undefined,
): Promise<void> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const node = typeof body?.node === 'string' ? body.node : '';
  if (!node) throw errorC(400, 'Node not found in params');
  const bad = node.match(RESERVED);
  if (bad) throw errorC(400, `Character '${bad[0]}' not allowed.`);
  const nodes = nodesOf(client.settings);
  nodes[node] = Math.floor(Date.now() / 1000);
  await saveClient(
    ctx,
    realm,
    client,
    { settings: { ...client.settings, registeredNodes: nodes } },
    {
      operationType: 'ACTION',
      resourceType: 'CLUSTER_NODE',
      resourcePath: `clients/${client.id}/nodes`,
      representation: { node },
    },
  );
}

/** DELETE /clients/{id}/nodes/{node}: unregisters a node; unknown → 404 `Client does not have node `. */
export async function unregisterClientNode(ctx: RequestContext, realm: RealmModel, client: ClientModel, node: string): Promise<void> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const nodes = nodesOf(client.settings);
  if (!(node in nodes)) throw notFound('Client does not have node ');
  delete nodes[node];
  await saveClient(
    ctx,
    realm,
    client,
    { settings: { ...client.settings, registeredNodes: nodes } },
    {
      operationType: 'DELETE',
      resourceType: 'CLUSTER_NODE',
      resourcePath: `clients/${client.id}/nodes/${node}`,
    },
  );
}

async function ping(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** GET /clients/{id}/test-nodes-available: pings `<adminUrl>/k_test_available` of each node (configure of the client). */
export async function testNodesAvailable(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<GlobalRequestResult> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const adminUrl = typeof client.settings.adminUrl === 'string' ? client.settings.adminUrl : '';
  const result: GlobalRequestResult = {};
  if (!adminUrl) return result;
  for (const node of Object.keys(nodesOf(client.settings))) {
    const url = `${adminUrl.replace('${application.session.host}', node).replace(/\/$/, '')}/k_test_available`;
    const key = (await ping(url)) ? 'successRequests' : 'failedRequests';
    result[key] = [...(result[key] ?? []), url];
  }
  await recordAdminEvent(ctx, realm, {
    operationType: 'ACTION',
    resourceType: 'CLUSTER_NODE',
    resourcePath: `clients/${client.id}/test-nodes-available`,
    representation: result,
  });
  return result;
}
