import type { Request, Response } from 'express';
import type { GroupModel } from '../../src/db/models/group';
import { findGroup } from '../../src/services/groups/group-queries';
import { ctxOf, once, realmOf } from '../http';

/** `/groups/{id}/...`: the group resolved once per request; unknown id → 404 `Could not find group by id`. */
export const groupOf = (req: Request, res: Response, name = 'id'): Promise<GroupModel> =>
  once(res, `group:${String(req.params[name])}`, () => findGroup(ctxOf(res), realmOf(res), String(req.params[name])));
