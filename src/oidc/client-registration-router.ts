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
    };
  };

  r.post(
    base,
    text,
    handle(async (req, res) => {
      const rr = await request(req);
      const out = await registerClient(rr, jsonObject(req, rr.provider));
      res.status(201).location(out.location).json(out.body);
    }),
  );
  r.get(
    `${base}/:clientId`,
    handle(async (req, res) => {
      res.json(await getRegisteredClient(await request(req), String(req.params.clientId)));
    }),
  );
  r.put(
    `${base}/:clientId`,
    text,
    handle(async (req, res) => {
      const rr = await request(req);
      res.json(await updateRegisteredClient(rr, String(req.params.clientId), jsonObject(req, rr.provider)));
    }),
  );
  r.delete(
    `${base}/:clientId`,
    handle(async (req, res) => {
      await deleteRegisteredClient(await request(req), String(req.params.clientId));
      res.status(204).end();
    }),
  );
}
