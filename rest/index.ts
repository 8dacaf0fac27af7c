import express, { Router, type Request } from 'express';
import type { Db } from '../src/db';
import { contextFromRequest } from '../src/auth/bearer';
import { watchWrites } from '../src/db/write-watch';
import { corsForToken, preflight } from '../src/auth/cors';
import { resolveRealm } from '../src/services/realms/realms';
import { groupsRouter, groupByPathRouter, defaultGroupsRouter } from './groups/groups';
import { ctxOf, middleware, rejectBadText } from './http';
import { realmRouter, realmsCollection } from './realms/realms';
import { roleMappingRouter } from './roles/role-mappings';
import { clientRolesRouter, realmRolesRouter, rolesByIdRouter } from './roles/roles';
import { clientDescriptionRouter, clientPartsRouter } from './clients/client-parts';
import { clientsRouter } from './clients/clients';
import { clientScopesRouter } from './client-scopes/client-scopes';
import { evaluateScopesRouter } from './client-scopes/evaluate-scopes';
import { protocolMappersRouter } from './client-scopes/protocol-mappers';
import { realmDefaultScopesRouter } from './client-scopes/realm-default-scopes';
import { scopeMappingsRouter } from './client-scopes/scope-mappings';
import { clientCertificatesRouter } from './clients/client-certificates';
import { clientRegistrationPolicyRouter } from './clients/client-registration-policy';
import { clientsInitialAccessRouter } from './clients/clients-initial-access';
import { userGroupsRouter } from './groups/user-groups';
import { userConsentsRouter } from './users/user-consents';
import { userCredentialsRouter } from './users/user-credentials';
import { userIdentitiesRouter } from './users/user-identities';
import { userImpersonationRouter } from './users/user-impersonation';
import { usersRouter } from './users/users';
import { attackDetectionRouter } from './sessions/attack-detection';
import { clientSessionsRouter } from './sessions/client-sessions';
import { realmSessionsRouter } from './sessions/sessions';
import { userSessionsRouter } from './sessions/user-sessions';
import { adminEventsRouter, eventsRouter } from './events/events';
import { smtpRouter } from './events/smtp';
import { userEmailsRouter } from './events/user-emails';
import { authenticationRouter } from './authentication/authentication';
import { requiredActionsRouter } from './authentication/required-actions';
import { identityProvidersRouter } from './identity-providers/identity-providers';
import { organizationsRouter } from './organizations/organizations';
import { organizationGroupsRouter } from './organizations/organization-groups';
import { clientPoliciesRouter } from './clients/client-policies';
import { localizationRouter } from './realms/localization';
import { partialImportExportRouter } from './import-export/partial-import-export';
import { consoleRouter, realmExtrasRouter } from './realms/realm-extras';
import { componentsRouter } from './components/components';
import { keysRouter } from './components/keys';
import { ldapCapabilitiesRouter, testLdapRouter } from './components/ldap';
import { userStorageRouter } from './components/user-storage';
import { serverInfoRouter } from './realms/server-info';

type Handler = express.RequestHandler;

/**
 * The routers under `/realms/{realm}`, mounted in order as with `Router#use`, and dispatched by the
 * first segment of the path: a request enters only the routers mounted under its segment (and those
 * mounted at the root, at their place in the order), instead of testing some 45 mount paths in turn
 * (express's routing was ~8 % of a GET /users/{id}, issue 12). What a request reaches, and in which
 * order, is what the plain router would give it. The plain router, with every mount, is kept for
 * `listRoutes()` (the route table, OpenAPI, metrics templates).
 */
class SegmentRouter {
  readonly all = Router({ mergeParams: true });
  private readonly bySegment = new Map<string, express.Router>();
  private readonly atRoot: Array<[string, Handler[]]> = [];
  private readonly rootOnly = Router({ mergeParams: true });

  use(path: string, ...handlers: Handler[]): this {
    this.all.use(path, ...handlers);
    // Matched as express matches paths: without regard to case.
    const segment = (path.split('/')[1] ?? '').toLowerCase();
    if (segment === '') {
      this.atRoot.push([path, handlers]);
      this.rootOnly.use(path, ...handlers);
      for (const r of this.bySegment.values()) r.use(path, ...handlers);
      return this;
    }
    if (!/^[a-z-]+$/.test(segment)) throw new Error(`A mount path must start with a literal segment: ${path}`);
    let r = this.bySegment.get(segment);
    if (!r) {
      r = Router({ mergeParams: true });
      for (const [p, h] of this.atRoot) r.use(p, ...h);
      this.bySegment.set(segment, r);
    }
    r.use(path, ...handlers);
    return this;
  }

  /** The middleware: the routers of the request's first segment, or the root ones. */
  handler(): Handler & { stack: unknown[]; listRoutes: () => unknown } {
    const dispatch = ((req, res, next) => {
      const url = req.url;
      const end = url.slice(1).search(/[/?#]/);
      const segment = (end < 0 ? url.slice(1) : url.slice(1, end + 1)).toLowerCase();
      (this.bySegment.get(segment) ?? this.rootOnly)(req, res, next);
    }) as Handler & { stack: unknown[]; listRoutes: () => unknown };
    dispatch.stack = (this.all as unknown as { stack: unknown[] }).stack;
    dispatch.listRoutes = () => (this.all as unknown as { listRoutes: () => unknown }).listRoutes();
    return dispatch;
  }
}

/** The `{realm}` of an admin path (`/realms/{realm}/...`), decoded; undefined for other paths or one that does not decode. */
function targetRealmOf(path: string): string | undefined {
  const m = /^\/realms\/([^/]+)/.exec(path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

/**
 * The admin REST front: preflight, bearer authentication into a RequestContext, realm resolution
 * (404 `Realm not found.` before any permission check), and one router per resource class.
 */
export function adminRouter(db: Db, baseUrlOf: (req: Request) => string): Router {
  const admin = Router();
  admin.use(express.raw({ type: () => true, limit: '10mb' }));

  // CORS preflight: answered without authentication.
  admin.options(/.*/, preflight('GET, PUT, POST, DELETE'));

  // Reads after a write in this request go past the shared caches (ADR 23); set after body parsing,
  // whose stream callbacks would leave the scope.
  admin.use((_req, _res, next) => watchWrites(next));
  admin.use(
    middleware(async (req, res) => {
      res.locals.ctx = await contextFromRequest(db, req, baseUrlOf(req), undefined, targetRealmOf(req.path));
    }),
    corsForToken,
    rejectBadText,
  );

  const realms = Router();
  realms.use('/', realmsCollection);
  const perRealm = new SegmentRouter();
  const owner = (kind: 'users' | 'groups') =>
    middleware(async (_req, res) => {
      res.locals.ownerType = kind;
    });
  perRealm.use('/users/:ownerId/role-mappings', owner('users'), roleMappingRouter);
  perRealm.use('/groups/:ownerId/role-mappings', owner('groups'), roleMappingRouter);
  perRealm.use('/users/:userId/groups', userGroupsRouter);
  perRealm.use('/users/:userId/consents', userConsentsRouter);
  perRealm.use('/users/:userId/federated-identity', userIdentitiesRouter);
  perRealm.use('/users/:userId', userCredentialsRouter);
  perRealm.use('/users', userImpersonationRouter);
  perRealm.use('/', userEmailsRouter);
  perRealm.use('/users/:userId', userSessionsRouter);
  perRealm.use('/users', usersRouter);
  perRealm.use('/groups', groupsRouter);
  perRealm.use('/group-by-path', groupByPathRouter);
  perRealm.use('/default-groups', defaultGroupsRouter);
  perRealm.use('/roles', realmRolesRouter);
  perRealm.use('/roles-by-id', rolesByIdRouter);
  perRealm.use('/clients/:ownerId/protocol-mappers', protocolMappersRouter('clients'));
  perRealm.use('/client-scopes/:ownerId/protocol-mappers', protocolMappersRouter('client-scopes'));
  perRealm.use('/client-templates/:ownerId/protocol-mappers', protocolMappersRouter('client-scopes'));
  perRealm.use('/clients/:ownerId/scope-mappings', scopeMappingsRouter('clients'));
  perRealm.use('/client-scopes/:ownerId/scope-mappings', scopeMappingsRouter('client-scopes'));
  perRealm.use('/client-templates/:ownerId/scope-mappings', scopeMappingsRouter('client-scopes'));
  perRealm.use('/clients/:clientUuid/evaluate-scopes', evaluateScopesRouter);
  perRealm.use('/client-scopes', clientScopesRouter);
  perRealm.use('/client-templates', clientScopesRouter);
  perRealm.use('/default-default-client-scopes', realmDefaultScopesRouter('default'));
  perRealm.use('/default-optional-client-scopes', realmDefaultScopesRouter('optional'));
  perRealm.use('/clients/:clientUuid/certificates', clientCertificatesRouter);
  perRealm.use('/clients/:clientUuid/roles', clientRolesRouter);
  perRealm.use('/clients/:clientUuid', clientPartsRouter);
  perRealm.use('/clients/:clientUuid', clientSessionsRouter);
  perRealm.use('/clients', clientsRouter);
  perRealm.use('/clients-initial-access', clientsInitialAccessRouter);
  perRealm.use('/client-registration-policy', clientRegistrationPolicyRouter);
  perRealm.use('/attack-detection/brute-force', attackDetectionRouter);
  perRealm.use('/client-description-converter', clientDescriptionRouter);
  perRealm.use('/identity-provider', identityProvidersRouter);
  perRealm.use('/organizations', organizationGroupsRouter);
  perRealm.use('/organizations', organizationsRouter);
  perRealm.use('/components', componentsRouter);
  perRealm.use('/keys', keysRouter);
  perRealm.use('/testLDAPConnection', testLdapRouter);
  perRealm.use('/user-storage', userStorageRouter);
  perRealm.use('/ldap-server-capabilities', ldapCapabilitiesRouter);
  perRealm.use('/events', eventsRouter);
  perRealm.use('/admin-events', adminEventsRouter);
  perRealm.use('/testSMTPConnection', smtpRouter);
  perRealm.use('/authentication', authenticationRouter);
  perRealm.use('/authentication', requiredActionsRouter);
  perRealm.use('/', realmSessionsRouter);
  perRealm.use('/localization', localizationRouter);
  perRealm.use('/client-policies', clientPoliciesRouter);
  perRealm.use('/', partialImportExportRouter);
  perRealm.use('/', realmExtrasRouter);
  perRealm.use('/', realmRouter);
  realms.use(
    '/:realm',
    middleware(async (req, res) => {
      res.locals.realm = await resolveRealm(ctxOf(res), req.params.realm as string);
    }),
    perRealm.handler(),
  );
  admin.use('/realms', realms);
  admin.use('/serverinfo', serverInfoRouter);
  admin.use('/:realm/console', consoleRouter);
  admin.use((_req, res) => {
    res.status(404).json({ error: 'Unable to find matching target resource method' });
  });
  return admin;
}
