import { Router } from 'express';
import {
  addClientScopeLink,
  listClientScopeLinks,
  removeClientScopeLink,
  type ScopeKind,
} from '../../src/services/client-scopes/client-scope-links';
import { convertClientDescription } from '../../src/services/clients/client-description';
import { clientInstallation } from '../../src/services/clients/client-installation';
import { registerClientNode, testNodesAvailable, unregisterClientNode } from '../../src/services/clients/client-nodes';
import {
  getClientSecret,
  getRotatedSecret,
  issueRegistrationAccessToken,
  regenerateClientSecret,
  removeRotatedSecret,
} from '../../src/services/clients/client-secret';
import { getServiceAccountUser } from '../../src/services/clients/client-service-account';
import { resourceServerRouter } from '../authz/resource-server';
import { managementPermissionRoutes } from '../authz/management-permissions';
import { clientManagementPermissions } from '../../src/services/authz/management-permissions';
import { ctxOf, json, noContent, parseJson, realmOf, route, textBody } from '../http';
import { clientOf } from '../parents';

/**
 * Sub-resources of `/admin/realms/{realm}/clients/{id}`: secret, registration access token,
 * service-account user, default/optional client scopes, cluster nodes, installation files,
 * management permissions. Mounted before `/clients`. The client is resolved once (`clientOf`).
 */
export const clientPartsRouter = Router({ mergeParams: true });

clientPartsRouter.get(
  '/client-secret',
  route(async (req, res) => json(res, await getClientSecret(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);
clientPartsRouter.post(
  '/client-secret',
  route(async (req, res) => json(res, await regenerateClientSecret(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);
clientPartsRouter.get(
  '/client-secret/rotated',
  route(async (req, res) => json(res, await getRotatedSecret(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);
clientPartsRouter.delete(
  '/client-secret/rotated',
  route(async (req, res) => {
    await removeRotatedSecret(ctxOf(res), realmOf(res), await clientOf(req, res));
    noContent(res);
  }),
);
clientPartsRouter.post(
  '/registration-access-token',
  route(async (req, res) => json(res, await issueRegistrationAccessToken(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);
clientPartsRouter.get(
  '/service-account-user',
  route(async (req, res) => json(res, await getServiceAccountUser(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);

for (const kind of ['default', 'optional'] as ScopeKind[]) {
  const path = `/${kind}-client-scopes`;
  clientPartsRouter.get(
    path,
    route(async (req, res) => json(res, await listClientScopeLinks(ctxOf(res), realmOf(res), await clientOf(req, res), kind))),
  );
  clientPartsRouter.put(
    `${path}/:scopeId`,
    route(async (req, res) => {
      await addClientScopeLink(ctxOf(res), realmOf(res), await clientOf(req, res), String(req.params.scopeId), kind);
      noContent(res);
    }),
  );
  clientPartsRouter.delete(
    `${path}/:scopeId`,
    route(async (req, res) => {
      await removeClientScopeLink(ctxOf(res), realmOf(res), await clientOf(req, res), String(req.params.scopeId), kind);
      noContent(res);
    }),
  );
}

clientPartsRouter.post(
  '/nodes',
  route(async (req, res) => {
    const body = parseJson(req);
    await registerClientNode(
      ctxOf(res),
      realmOf(res),
      await clientOf(req, res),
      body && typeof body === 'object' ? (body as { node?: unknown }) : undefined,
    );
    noContent(res);
  }),
);
clientPartsRouter.delete(
  '/nodes/:node',
  route(async (req, res) => {
    await unregisterClientNode(ctxOf(res), realmOf(res), await clientOf(req, res), String(req.params.node));
    noContent(res);
  }),
);
clientPartsRouter.get(
  '/test-nodes-available',
  route(async (req, res) => json(res, await testNodesAvailable(ctxOf(res), realmOf(res), await clientOf(req, res)))),
);

// Authorization services of the client (rest/authz/).
clientPartsRouter.use('/authz/resource-server', resourceServerRouter);

managementPermissionRoutes(clientPartsRouter, '/management/permissions', async (req, res, body) =>
  clientManagementPermissions(ctxOf(res), realmOf(res), await clientOf(req, res), body),
);

clientPartsRouter.get(
  '/installation/providers/:providerId',
  route(async (req, res) => {
    const file = await clientInstallation(ctxOf(res), realmOf(res), await clientOf(req, res), String(req.params.providerId));
    res.status(200).type(file.contentType).send(file.body);
  }),
);

/** `POST /admin/realms/{realm}/client-description-converter`: raw text in, ClientRepresentation out. */
export const clientDescriptionRouter = Router({ mergeParams: true });

clientDescriptionRouter.post(
  '/',
  route(async (req, res) => json(res, await convertClientDescription(ctxOf(res), realmOf(res), textBody(req)))),
);
