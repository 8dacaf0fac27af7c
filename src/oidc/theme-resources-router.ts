import { type Request, type Response, Router } from 'express';
import { preflight } from '../auth/cors';
import type { Db } from '../db';
import { themeBundle } from '../services/themes/bundles';
import { handle } from './http';

/**
 * `/resources/{realm}/{themeType}/{locale}`: a theme's message bundle merged with the realm's
 * localization texts (Keycloak 26's ThemeResource#getLocalizationTexts). Public: no token is read;
 * any origin may read it (Keycloak: allowAllOrigins with credentials).
 */
export function themeResourcesRouter(db: Db): Router {
  const r = Router();
  r.options('/:realm/:themeType/:locale', preflight('GET, HEAD, OPTIONS'));
  r.get(
    '/:realm/:themeType/:locale',
    handle(async (req: Request, res: Response) => {
      // JAX-RS reads a boolean query parameter as Boolean.valueOf: "true" in any case, anything else false.
      const source = String(req.query.source ?? '').toLowerCase() === 'true';
      const bundle = await themeBundle(db, String(req.params.realm), String(req.params.themeType), String(req.params.locale), source);
      if (!bundle) {
        res.status(404).end();
        return;
      }
      const origin = req.headers.origin;
      if (origin) res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' });
      res.json(bundle);
    }),
  );
  return r;
}
