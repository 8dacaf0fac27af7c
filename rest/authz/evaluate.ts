import { Router } from 'express';
import { evaluatePolicies } from '../../src/services/authz/policy-evaluate';
import { ctxOf, json, parseJson, route } from '../http';
import { targetOf } from './parent';

/** `.../authz/resource-server/policy/evaluate`: the admin console's evaluate tool (POST only). */
export const evaluateRouter = Router({ mergeParams: true });

evaluateRouter.post(
  '/',
  route(async (req, res) => {
    const body = parseJson(req);
    json(res, await evaluatePolicies(ctxOf(res), await targetOf(req, res), body));
  }),
);
