import { Router } from 'express';
import {
  evaluateProtocolMappers,
  evaluateScopeMappings,
  generateExample,
  type ExampleKind,
} from '../../src/services/client-scopes/evaluate-scopes';
import { ctxOf, json, qStr, realmOf, route } from '../http';
import { clientOf } from '../parents';

/** `/clients/:clientUuid/evaluate-scopes/...`: mappers, granted roles and example tokens for a scope parameter. */
export const evaluateScopesRouter = Router({ mergeParams: true });

evaluateScopesRouter.get(
  '/protocol-mappers',
  route(async (req, res) =>
    json(res, await evaluateProtocolMappers(ctxOf(res), realmOf(res), await clientOf(req, res), qStr(req, 'scope'))),
  ),
);

for (const [path, granted] of [
  ['granted', true],
  ['not-granted', false],
] as const) {
  evaluateScopesRouter.get(
    `/scope-mappings/:roleContainerId/${path}`,
    route(async (req, res) =>
      json(
        res,
        await evaluateScopeMappings(
          ctxOf(res),
          realmOf(res),
          await clientOf(req, res),
          req.params.roleContainerId as string,
          qStr(req, 'scope'),
          granted,
        ),
      ),
    ),
  );
}

for (const [path, kind] of [
  ['generate-example-access-token', 'access'],
  ['generate-example-id-token', 'id'],
  ['generate-example-userinfo', 'userinfo'],
] as Array<[string, ExampleKind]>) {
  evaluateScopesRouter.get(
    `/${path}`,
    route(async (req, res) =>
      json(
        res,
        await generateExample(ctxOf(res), realmOf(res), await clientOf(req, res), kind, {
          scope: qStr(req, 'scope'),
          userId: qStr(req, 'userId'),
          audience: qStr(req, 'audience'),
        }),
      ),
    ),
  );
}
