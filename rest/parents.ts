import type { Request, Response } from 'express';
import type { ClientModel, ClientScopeModel } from '../src/db/models/client';
import type { UserModel } from '../src/db/models/user';
import { resolveClientScope } from '../src/services/client-scopes/scope-owner';
import { resolveClient } from '../src/services/clients/clients';
import { resolveUser } from '../src/services/users/users';
import { ctxOf, once, realmOf } from './http';

/**
 * The parents of sub-resources, resolved once per request with Keycloak's 404-or-403 rule (a caller
 * who may not list the kind gets 403, so ids cannot be probed) and handed to the services as models.
 * The realm itself is resolved by the admin middleware (rest/index.ts).
 */
const param = (req: Request, name: string) => String(req.params[name]);

/** `/users/{userId}/...`: 404 `User not found`, or 403 without query-users. */
export const userOf = (req: Request, res: Response, name = 'userId'): Promise<UserModel> =>
  once(res, `user:${param(req, name)}`, () => resolveUser(ctxOf(res), realmOf(res), param(req, name)));

/** `/clients/{clientUuid}/...`: 404 `Could not find client`, or 403 without query-clients. */
export const clientOf = (req: Request, res: Response, name = 'clientUuid'): Promise<ClientModel> =>
  once(res, `client:${param(req, name)}`, () => resolveClient(ctxOf(res), realmOf(res), param(req, name)));

/** `/client-scopes/{id}/...`: 404 `Could not find client scope`, or 403 without query-clients. */
export const clientScopeOf = (req: Request, res: Response, name = 'id'): Promise<ClientScopeModel> =>
  once(res, `client-scope:${param(req, name)}`, () => resolveClientScope(ctxOf(res), realmOf(res), param(req, name)));
