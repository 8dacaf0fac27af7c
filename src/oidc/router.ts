import express, { Router } from 'express';
import { HttpError } from '../core/errors';
import { hasBadText } from '../core/input-text';
import { isServerFault, logServerFault, requestIdOf } from '../core/server-errors';
import type { Db } from '../db';
import { getLogger } from '../logging';
import { pushAuthorizationRequest } from '../services/login/par';
import { discoveryDocument, realmJwks } from '../services/tokens/oidc-metadata';
import { tokenEndpoint } from '../services/tokens/token-endpoint';
import { oauth } from '../services/tokens/tokens';
import type { X509LookupConfig } from '../config/x509-options';
import type { CibaConfig } from '../config/ciba-options';
import { cibaRoutes } from './ciba-router';
import { senderProofs } from './client-cert';
import { clientRegistrationRoutes } from './client-registration-router';
import { basicCredentials, handle } from './http';
import { relyingPartyRoutes } from './relying-party';

const log = getLogger('idserver.oidc');

/** `/realms/{realm}/...`: the token endpoint, CIBA, the pushed authorization request endpoint, userinfo, introspection and revocation, JWKS, OpenID discovery and client registration. */
export function oidcRouter(
  db: Db,
  baseUrlOf: (req: express.Request) => string,
  opts: { x509?: X509LookupConfig; ciba?: CibaConfig } = {},
): Router {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: '1mb' });

  r.post(
    '/:realm/protocol/openid-connect/token',
    form,
    handle(async (req, res) => {
      const basic = basicCredentials(req);
      const body = (req.body ?? {}) as Record<string, string>;
      const texts = [...Object.values(body), basic?.clientId ?? '', basic?.secret ?? ''];
      if (texts.some((v) => typeof v === 'string' && hasBadText(v))) {
        throw oauth(400, 'invalid_request', 'Text must not contain NUL characters or unpaired surrogates');
      }
      const out = await tokenEndpoint(db, {
        realm: String(req.params.realm),
        form: body,
        basic,
        bearer: /^bearer\s/i.test(req.headers.authorization ?? '') ? req.headers.authorization?.slice(7).trim() : undefined,
        baseUrl: baseUrlOf(req),
        ipAddress: req.ip,
        ...senderProofs(req, baseUrlOf(req), opts.x509),
      });
      res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json(out);
    }),
  );

  r.post(
    '/:realm/protocol/openid-connect/ext/par/request',
    form,
    handle(async (req, res) => {
      const basic = basicCredentials(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const texts = [...Object.entries(body).flat(), basic?.clientId ?? '', basic?.secret ?? ''];
      if (texts.some((v) => typeof v === 'string' && hasBadText(v))) {
        throw oauth(400, 'invalid_request', 'Text must not contain NUL characters or unpaired surrogates');
      }
      const out = await pushAuthorizationRequest(db, {
        realm: String(req.params.realm),
        form: body,
        basic,
        baseUrl: baseUrlOf(req),
        ipAddress: req.ip,
      });
      res.status(201).set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json(out);
    }),
  );

  r.get(
    '/:realm/protocol/openid-connect/certs',
    handle(async (req, res) => {
      const jwks = await realmJwks(db, String(req.params.realm));
      res.set('Cache-Control', 'no-cache').json(jwks);
    }),
  );

  r.get(
    '/:realm/.well-known/openid-configuration',
    handle(async (req, res) => {
      res.json(await discoveryDocument(db, String(req.params.realm), baseUrlOf(req), { ciba: Boolean(opts.ciba?.channelUri) }));
    }),
  );

  relyingPartyRoutes(r, db, baseUrlOf, opts.x509);
  clientRegistrationRoutes(r, db, baseUrlOf);
  cibaRoutes(r, db, baseUrlOf, opts.ciba);

  // Typed errors answer here; anything else goes on to the app's error handler (logged there).
  r.use((err: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!(err instanceof HttpError)) {
      next(err);
      return;
    }
    if (isServerFault(err)) {
      logServerFault(log, { method: req.method, route: String(res.locals.routeTemplate), requestId: requestIdOf(req) }, err);
    }
    res.status(err.status).json(err.body);
  });
  return r;
}
