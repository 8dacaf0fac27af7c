import express, { type Router } from 'express';
import { preflight } from '../auth/cors';
import { hasBadText } from '../core/input-text';
import type { Db } from '../db';
import { introspect } from '../services/tokens/introspection';
import { RevocationError, revoke } from '../services/tokens/revocation';
import { oauth } from '../services/tokens/tokens';
import { BearerChallenge, userinfo } from '../services/tokens/userinfo';
import type { X509LookupConfig } from '../config/x509-options';
import { authorizationHeader } from '../services/tokens/dpop';
import { senderProofs } from './client-cert';
import { basicCredentials, handle } from './http';

/**
 * The relying-party endpoints of a realm that need no browser (issue 14): userinfo, token
 * introspection and token revocation, under `/realms/{realm}/protocol/openid-connect/`. Thin
 * adapters: they read the token or the client credentials and the form, call the service, and render
 * its answer or its error with Keycloak's headers (Bearer challenge, CORS for the client's web origins).
 */

/** CORS headers for the request's origin when `allowed` (all origins, or the client's web origins) admits it. */
function cors(req: express.Request, res: express.Response, allowed: 'all' | string[]): void {
  const origin = req.headers.origin;
  if (!origin || (allowed !== 'all' && !allowed.includes(origin) && !allowed.includes('*'))) return;
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': 'Access-Control-Allow-Methods',
    Vary: 'Origin',
  });
}

/** Form parameters sent more than once (express parses them into arrays). */
const repeatedOf = (form: Record<string, unknown>) => Object.keys(form).filter((k) => Array.isArray(form[k]));

/** The form, refused when a value holds NUL characters or unpaired surrogates (as the token endpoint does). */
function formOf(req: express.Request): Record<string, unknown> {
  const form = (req.body ?? {}) as Record<string, unknown>;
  const basic = basicCredentials(req);
  const texts = [...Object.values(form).flat(), basic?.clientId ?? '', basic?.secret ?? '', req.headers.authorization ?? ''];
  if (texts.some((v) => typeof v === 'string' && hasBadText(v))) {
    throw oauth(400, 'invalid_request', 'Text must not contain NUL characters or unpaired surrogates');
  }
  return form;
}

/** The scheme and token of an `Authorization: Bearer|DPoP <token>` header (Keycloak's extractAuthorizationHeaderTokenOrReturnNull). */
const headerToken = (req: express.Request) => authorizationHeader(req.headers.authorization);

/** Adds the userinfo, introspection and revocation routes to the realm router `r`. */
export function relyingPartyRoutes(r: Router, db: Db, baseUrlOf: (req: express.Request) => string, x509?: X509LookupConfig): void {
  const form = express.urlencoded({ extended: false, limit: '1mb' });
  const oidc = '/:realm/protocol/openid-connect';

  const serveUserinfo = handle(async (req, res) => {
    const header = headerToken(req);
    let token = header?.token;
    let scheme = header?.scheme;
    let malformed: string | undefined;
    if (req.method === 'POST') {
      const body = formOf(req);
      const param = body.access_token;
      if (Array.isArray(param)) malformed = 'Duplicate parameter';
      else if (typeof param === 'string') {
        if (token !== undefined) malformed = 'More than one method used for including an access token';
        token = param;
        scheme = 'Bearer';
      }
    } else if (hasBadText(req.headers.authorization ?? '')) {
      throw oauth(400, 'invalid_request', 'Text must not contain NUL characters or unpaired surrogates');
    }
    res.set('Cache-Control', 'no-cache');
    try {
      const baseUrl = baseUrlOf(req);
      const proofs = senderProofs(req, baseUrl, x509);
      const out = await userinfo(db, {
        realm: String(req.params.realm),
        token,
        malformed,
        baseUrl,
        ipAddress: req.ip,
        scheme,
        method: req.method,
        ...proofs,
      });
      cors(req, res, out.origins);
      if (out.jwt !== undefined) res.status(200).type('application/jwt').send(out.jwt);
      else res.status(200).json(out.claims);
    } catch (e) {
      if (!(e instanceof BearerChallenge)) throw e;
      cors(req, res, e.cors);
      res.status(e.status).set('WWW-Authenticate', e.challenge).type('text/plain').send('');
    }
  });
  r.options(`${oidc}/userinfo`, preflight('GET, POST, OPTIONS'));
  r.get(`${oidc}/userinfo`, serveUserinfo);
  r.post(`${oidc}/userinfo`, form, serveUserinfo);

  r.post(
    `${oidc}/token/introspect`,
    form,
    handle(async (req, res) => {
      const body = formOf(req);
      const out = await introspect(db, {
        realm: String(req.params.realm),
        form: body,
        basic: basicCredentials(req),
        repeated: repeatedOf(body),
        ipAddress: req.ip,
        baseUrl: baseUrlOf(req),
      });
      res.set('Cache-Control', 'no-cache').json(out);
    }),
  );

  r.options(`${oidc}/revoke`, preflight('POST, OPTIONS'));
  r.post(
    `${oidc}/revoke`,
    form,
    handle(async (req, res) => {
      const body = formOf(req);
      try {
        const baseUrl = baseUrlOf(req);
        const out = await revoke(db, {
          realm: String(req.params.realm),
          form: body,
          basic: basicCredentials(req),
          repeated: repeatedOf(body),
          ipAddress: req.ip,
          baseUrl,
          ...senderProofs(req, baseUrl, x509),
        });
        cors(req, res, out.origins);
        res.status(200).end();
      } catch (e) {
        if (!(e instanceof RevocationError)) throw e;
        cors(req, res, e.origins);
        res.status(e.status).json(e.body);
      }
    }),
  );
}
