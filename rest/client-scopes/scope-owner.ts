import type { Request, Response } from 'express';
import { type ScopeOwner, type ScopeOwnerType, clientScopeOwner, scopeScopeOwner } from '../../src/services/client-scopes/scope-owner';
import { realmOf } from '../http';
import { clientOf, clientScopeOf } from '../parents';

/** The `{scopeOwner}` of `/{clients|client-scopes}/:ownerId/...`, resolved once per request (404-or-403 rule of its kind). */
export async function scopeOwnerOf(req: Request, res: Response, type: ScopeOwnerType): Promise<ScopeOwner> {
  return type === 'clients'
    ? clientScopeOwner(realmOf(res), await clientOf(req, res, 'ownerId'))
    : scopeScopeOwner(realmOf(res), await clientScopeOf(req, res, 'ownerId'));
}
