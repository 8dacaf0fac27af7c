import { type Request, Router } from 'express';
import {
  addIdentityProvider,
  deleteIdentityProvider,
  getIdentityProvider,
  getIdentityProviderFactory,
  identityProviderManagementPermissions,
  listIdentityProviders,
  reloadIdentityProviderKeys,
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
import { created, ctxOf, json, jsonBody, noContent, parseJson, qBool, qInt, qStr, realmOf, route } from '../http';
import { isMultipart, multipartFields } from '../multipart';

/**
 * `/admin/realms/{realm}/identity-provider`: identity provider instances, their mappers and mapper
 * types, SAML export, provider factories, import-config, and the FGAP v1 management permissions
 * (501: the feature is off).
 */
export const identityProvidersRouter = Router({ mergeParams: true });
const REP = 'IdentityProviderRepresentation';
const MAPPER = 'IdentityProviderMapperRepresentation';
const alias = (params: Record<string, unknown>) => String(params.alias);

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
  route(async (req, res) => json(res, await getIdentityProvider(ctxOf(res), realmOf(res), alias(req.params)))),
);
identityProvidersRouter.put(
  '/instances/:alias',
  route(async (req, res) => {
    await updateIdentityProvider(ctxOf(res), realmOf(res), alias(req.params), jsonBody(req, REP));
    noContent(res);
  }),
);
identityProvidersRouter.delete(
  '/instances/:alias',
  route(async (req, res) => {
    await deleteIdentityProvider(ctxOf(res), realmOf(res), alias(req.params));
    noContent(res);
  }),
);

identityProvidersRouter.get(
  '/instances/:alias/export',
  route(async (req, res) => {
    const file = await exportIdentityProvider(ctxOf(res), realmOf(res), alias(req.params));
    res.status(200).type(file.contentType).send(file.body);
  }),
);
identityProvidersRouter.get(
  '/instances/:alias/reload-keys',
  route(async (req, res) => json(res, await reloadIdentityProviderKeys(ctxOf(res), realmOf(res), alias(req.params)))),
);
const permissions = route(async () => identityProviderManagementPermissions());
identityProvidersRouter.get('/instances/:alias/management/permissions', permissions);
identityProvidersRouter.put('/instances/:alias/management/permissions', permissions);

identityProvidersRouter.get(
  '/instances/:alias/mapper-types',
  route(async (req, res) => json(res, await listIdpMapperTypes(ctxOf(res), realmOf(res), alias(req.params)))),
);
identityProvidersRouter.get(
  '/instances/:alias/mappers',
  route(async (req, res) => json(res, await listIdpMappers(ctxOf(res), realmOf(res), alias(req.params)))),
);
identityProvidersRouter.post(
  '/instances/:alias/mappers',
  route(async (req, res) => created(req, res, await addIdpMapper(ctxOf(res), realmOf(res), alias(req.params), jsonBody(req, MAPPER)))),
);
identityProvidersRouter.get(
  '/instances/:alias/mappers/:id',
  route(async (req, res) => json(res, await getIdpMapper(ctxOf(res), realmOf(res), alias(req.params), String(req.params.id)))),
);
identityProvidersRouter.put(
  '/instances/:alias/mappers/:id',
  route(async (req, res) => {
    await updateIdpMapper(ctxOf(res), realmOf(res), alias(req.params), String(req.params.id), jsonBody(req, MAPPER));
    noContent(res);
  }),
);
identityProvidersRouter.delete(
  '/instances/:alias/mappers/:id',
  route(async (req, res) => {
    await deleteIdpMapper(ctxOf(res), realmOf(res), alias(req.params), String(req.params.id));
    noContent(res);
  }),
);
