import express, { type Router } from 'express';
import { createContext } from '../core/context';
import { cannotParse, errorC } from '../core/errors';
import { checkJsonValue } from '../core/input-text';
import { requestIdOf } from '../core/server-errors';
import type { Db } from '../db';
import { validateRepresentation } from '../representations/schema';
import {
  deleteRegisteredClient,
  getRegisteredClient,
  type RegistrationRequest,
  registerClient,
  updateRegisteredClient,
} from '../services/client-registration/client-registration';
import { publicRealm } from '../services/tokens/oidc-metadata';
import { handle } from './http';
import { preflight } from '../auth/cors';

/**
 * The client registration service, `/realms/{realm}/clients-registrations/{provider}` (issue 16):
 * `default` takes and answers Keycloak's ClientRepresentation, `openid-connect` OIDC client metadata
 * (RFC 7591 / 7592). Thin adapter: reads the JSON body, the `Authorization` header and the caller's
 * address, calls src/services/client-registration.
 */

const PROVIDERS = new Set(['default', 'openid-connect']);

/** The JSON object of the body: Keycloak's 415 for another type, 400 for JSON that does not parse or is no object. */
function jsonObject(req: express.Request, provider: string): Record<string, unknown> {
  const raw = typeof req.body === 'string' ? req.body : '';
  const ct = req.headers['content-type'];
  if (!ct) throw errorC(415, 'HTTP 415 Unsupported Media Type');
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(ct))
    throw errorC(415, 'The content-type header value did not match the value in @Consumes');
  if (!raw.trim()) throw errorC(400, 'HTTP 400 Bad Request');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw cannotParse('syntax');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw cannotParse('mapping');
  const bad = checkJsonValue(value);
  if (bad) throw bad;
  if (provider === 'default') return validateRepresentation<Record<string, unknown>>('ClientRepresentation', value, raw);
  return value as Record<string, unknown>;
}

/** CORS headers when the request's origin is one the registration-web-origins policies allowed (Keycloak's Cors). */
function registrationCors(req: express.Request, res: express.Response, allowed: string[]): void {
  const origin = req.headers.origin;
  if (!origin || !(allowed.includes(origin) || allowed.includes('*'))) return;
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': 'Location',
    Vary: 'Origin',
  });
}

/** Adds the registration routes to the realm router `r`. */
export function clientRegistrationRoutes(r: Router, db: Db, baseUrlOf: (req: express.Request) => string): void {
  const text = express.text({ type: () => true, limit: '1mb' });
  const base = '/:realm/clients-registrations/:provider';

  const request = async (req: express.Request): Promise<RegistrationRequest> => {
    const provider = String(req.params.provider);
    const realm = await publicRealm(db, String(req.params.realm));
    if (!PROVIDERS.has(provider)) throw errorC(404, 'Client registration provider not found');
    return {
      ctx: createContext(db, null, baseUrlOf(req), 'idserver.client-registration', requestIdOf(req)),
      realm,
      provider,
      authorization: req.headers.authorization,
      remoteAddress: req.ip ?? req.socket.remoteAddress,
      corsOrigins: [],
    };
  };
  /** Runs `fn` with the request; the answer, refusal or not, gets CORS for the origins the registration-web-origins policies allowed. */
  const withCors =
    (fn: (rr: RegistrationRequest, req: express.Request) => Promise<(res: express.Response) => void>) =>
    async (req: express.Request, res: express.Response) => {
      const rr = await request(req);
      let send: (res: express.Response) => void;
      try {
        send = await fn(rr, req);
      } finally {
        registrationCors(req, res, rr.corsOrigins ?? []);
      }
      send(res);
    };

  r.options(base, preflight('POST, OPTIONS'));
  r.options(`${base}/:clientId`, preflight('GET, PUT, DELETE, OPTIONS'));

  r.post(
    base,
    text,
    handle(
      withCors(async (rr, req) => {
        const out = await registerClient(rr, jsonObject(req, rr.provider));
        return (res) => res.status(201).location(out.location).json(out.body);
      }),
    ),
  );
  r.get(
    `${base}/:clientId`,
    handle(
      withCors(async (rr, req) => {
        const out = await getRegisteredClient(rr, String(req.params.clientId));
        return (res) => res.json(out);
      }),
    ),
  );
  r.put(
    `${base}/:clientId`,
    text,
    handle(
      withCors(async (rr, req) => {
        const out = await updateRegisteredClient(rr, String(req.params.clientId), jsonObject(req, rr.provider));
        return (res) => res.json(out);
      }),
    ),
  );
  r.delete(
    `${base}/:clientId`,
    handle(
      withCors(async (rr, req) => {
        await deleteRegisteredClient(rr, String(req.params.clientId));
        return (res) => res.status(204).end();
      }),
    ),
  );
}
