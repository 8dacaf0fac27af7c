import { type Request, Router } from 'express';
import { errorC } from '../../src/core/errors';
import { testSmtpConnection } from '../../src/services/events/email';
import { ctxOf, noContent, parseJson, rawBody, realmOf, route } from '../http';

/** `POST /admin/realms/{realm}/testSMTPConnection` (config §10.5): JSON settings, or the deprecated form field `config`. */
export const smtpRouter = Router({ mergeParams: true });

function settingsBody(req: Request): unknown {
  if (/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) {
    const config = new URLSearchParams(rawBody(req)).get('config');
    try {
      return config ? JSON.parse(config) : undefined;
    } catch {
      throw errorC(400, 'HTTP 400 Bad Request');
    }
  }
  return parseJson(req);
}

smtpRouter.post(
  '/',
  route(async (req, res) => {
    await testSmtpConnection(ctxOf(res), realmOf(res), settingsBody(req));
    noContent(res);
  }),
);
