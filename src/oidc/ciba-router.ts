import express, { type Router } from 'express';
import type { CibaConfig } from '../config/ciba-options';
import { hasBadText } from '../core/input-text';
import type { Db } from '../db';
import { backchannelAuthentication } from '../services/tokens/ciba-auth';
import { backchannelCallback } from '../services/tokens/ciba-callback';
import { oauth } from '../services/tokens/tokens';
import { basicCredentials, handle } from './http';

/**
 * The CIBA endpoints of a realm (ADR 0044), Keycloak's `ext/ciba` provider: the backchannel
 * authentication endpoint (form, client authentication) and the authentication device's callback
 * (JSON, the bearer token the device was given). Thin adapters over services/tokens/ciba-*.ts.
 */
export function cibaRoutes(r: Router, db: Db, baseUrlOf: (req: express.Request) => string, ciba: CibaConfig = {}): void {
  const form = express.urlencoded({ extended: false, limit: '1mb' });
  const json = express.json({ limit: '64kb', type: () => true });

  r.post(
    '/:realm/protocol/openid-connect/ext/ciba/auth',
    form,
    handle(async (req, res) => {
      const basic = basicCredentials(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const texts = [...Object.values(body).flat(), basic?.clientId ?? '', basic?.secret ?? ''];
      if (texts.some((v) => typeof v === 'string' && hasBadText(v))) {
        throw oauth(400, 'invalid_request', 'Text must not contain NUL characters or unpaired surrogates');
      }
      const out = await backchannelAuthentication(db, {
        realm: String(req.params.realm),
        form: body,
        basic,
        baseUrl: baseUrlOf(req),
        ipAddress: req.ip,
        channelUri: ciba.channelUri,
      });
      res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json(out);
    }),
  );

  r.post(
    '/:realm/protocol/openid-connect/ext/ciba/auth/callback',
    (req, res, next) => {
      json(req, res, (err?: unknown) => {
        if (err) next(oauth(400, 'invalid_request', 'Invalid authentication status'));
        else next();
      });
    },
    handle(async (req, res) => {
      const auth = req.headers.authorization ?? '';
      const bearer = /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '').trim() || undefined : undefined;
      await backchannelCallback(db, {
        realm: String(req.params.realm),
        bearer,
        body: req.body,
        baseUrl: baseUrlOf(req),
        ipAddress: req.ip,
      });
      res.set('Cache-Control', 'no-store').status(200).end();
    }),
  );
}
