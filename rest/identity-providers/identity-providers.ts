import { type Request, type Response, Router } from 'express';
import type { IdentityProviderModel } from '../../src/db/models/identity-provider';
import {
  type IdpAccess,
  addIdentityProvider,
  deleteIdentityProvider,
  getIdentityProvider,
  getIdentityProviderFactory,
  listIdentityProviders,
  reloadIdentityProviderKeys,
  resolveIdentityProvider,
  updateIdentityProvider,
} from '../../src/services/identity-providers/identity-providers';
import {
  exportIdentityProvider,
  importIdentityProviderConfig,
  importIdentityProviderConfigFile,
} from '../../src/services/identity-providers/idp-import-config';
import {
  addIdpMapper,
  deleteIdpMapper,
  getIdpMapper,
  listIdpMapperTypes,
  listIdpMappers,
  updateIdpMapper,
} from '../../src/services/identity-providers/idp-mappers';
import { created, ctxOf, json, jsonBody, noContent, once, parseJson, qBool, qInt, qStr, realmOf, route } from '../http';
import { isMultipart, multipartFields } from '../multipart';
import { idpManagementPermissions } from '../../src/services/authz/management-permissions';
import { managementPermissionRoutes } from '../authz/management-permissions';

/**
 * `/admin/realms/{realm}/identity-provider`: identity provider instances, their mappers and mapper
 * types, SAML export, provider factories, import-config, and the FGAP v1 management permissions
 * (501: the feature is off).
 */
export const identityProvidersRouter = Router({ mergeParams: true });
const REP = 'IdentityProviderRepresentation';
const MAPPER = 'IdentityProviderMapperRepresentation';
const alias = (params: Record<string, unknown>) => String(params.alias);

/**
 * The provider of `/instances/{alias}/...`, resolved once per request: 403 without the access the
 * endpoint needs, then 404 `HTTP 404 Not Found`.
 */
const idpOf = (req: Request, res: Response, access: IdpAccess): Promise<IdentityProviderModel> =>
  once(res, `identity-provider:${alias(req.params)}`, () => resolveIdentityProvider(ctxOf(res), realmOf(res), alias(req.params), access));

identityProvidersRouter.get(
  '/providers/:providerId',
  route(async (req, res) => json(res, await getIdentityProviderFactory(ctxOf(res), realmOf(res), String(req.params.providerId)))),
);
/** The `providerId` and `file` fields of a multipart import-config body. */
async function formFields(req: Request): Promise<{ providerId?: string; file?: string }> {
  const fields = await multipartFields(req);
  return { providerId: fields.get('providerId')?.toString('utf8'), file: fields.get('file')?.toString('utf8') };
}

identityProvidersRouter.post(
  '/import-config',
  route(async (req, res) => {
    const ctx = ctxOf(res);
    if (isMultipart(req)) {
      return json(res, await importIdentityProviderConfigFile(ctx, realmOf(res), await formFields(req)));
    }
    json(res, await importIdentityProviderConfig(ctx, realmOf(res), parseJson(req)));
  }),
);

identityProvidersRouter.get(
  '/instances',
  route(async (req, res) =>
    json(
      res,
      await listIdentityProviders(ctxOf(res), realmOf(res), {
        search: qStr(req, 'search'),
        brief: qBool(req, 'briefRepresentation'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        realmOnly: qBool(req, 'realmOnly'),
      }),
    ),
  ),
);
identityProvidersRouter.post(
  '/instances',
  route(async (req, res) => created(req, res, await addIdentityProvider(ctxOf(res), realmOf(res), jsonBody(req, REP)))),
);
identityProvidersRouter.get(
  '/instances/:alias',
  route(async (req, res) => json(res, getIdentityProvider(await idpOf(req, res, 'view')))),
);
identityProvidersRouter.put(
  '/instances/:alias',
  route(async (req, res) => {
    const body = jsonBody(req, REP);
    await updateIdentityProvider(ctxOf(res), realmOf(res), await idpOf(req, res, 'manage'), body, alias(req.params));
    noContent(res);
  }),
);
identityProvidersRouter.delete(
  '/instances/:alias',
  route(async (req, res) => {
    await deleteIdentityProvider(ctxOf(res), realmOf(res), await idpOf(req, res, 'manage'), alias(req.params));
    noContent(res);
  }),
);

identityProvidersRouter.get(
  '/instances/:alias/export',
  route(async (req, res) => {
    const file = await exportIdentityProvider(ctxOf(res), realmOf(res), await idpOf(req, res, 'view'));
    res.status(200).type(file.contentType).send(file.body);
  }),
);
identityProvidersRouter.get(
  '/instances/:alias/reload-keys',
  route(async (req, res) => json(res, reloadIdentityProviderKeys(await idpOf(req, res, 'manage')))),
);
managementPermissionRoutes(identityProvidersRouter, '/instances/:alias/management/permissions', async (req, res, body) =>
  idpManagementPermissions(ctxOf(res), realmOf(res), await idpOf(req, res, 'view'), body),
);

identityProvidersRouter.get(
  '/instances/:alias/mapper-types',
  route(async (req, res) => json(res, listIdpMapperTypes(await idpOf(req, res, 'view')))),
);
identityProvidersRouter.get(
  '/instances/:alias/mappers',
  route(async (req, res) => json(res, await listIdpMappers(ctxOf(res), await idpOf(req, res, 'view')))),
);
identityProvidersRouter.post(
  '/instances/:alias/mappers',
  route(async (req, res) => {
    const body = jsonBody(req, MAPPER);
    created(req, res, await addIdpMapper(ctxOf(res), realmOf(res), await idpOf(req, res, 'manage'), body));
  }),
);
identityProvidersRouter.get(
  '/instances/:alias/mappers/:id',
  route(async (req, res) => json(res, await getIdpMapper(ctxOf(res), await idpOf(req, res, 'view'), String(req.params.id)))),
);
identityProvidersRouter.put(
  '/instances/:alias/mappers/:id',
  route(async (req, res) => {
    const body = jsonBody(req, MAPPER);
    const idp = await idpOf(req, res, 'manage');
    await updateIdpMapper(ctxOf(res), realmOf(res), idp, String(req.params.id), body, alias(req.params));
    noContent(res);
  }),
);
identityProvidersRouter.delete(
  '/instances/:alias/mappers/:id',
  route(async (req, res) => {
    await deleteIdpMapper(ctxOf(res), realmOf(res), await idpOf(req, res, 'manage'), String(req.params.id), alias(req.params));
    noContent(res);
  }),
);
