import type express from 'express';
import { routeTemplate } from '../core/server-errors';

/** The small HTTP toolkit of the public OIDC routers (src/oidc/*). */

type Handler = (req: express.Request, res: express.Response) => Promise<void>;

/** An async handler whose errors go to the router's error handler. */
export const handle =
  (fn: Handler): express.RequestHandler =>
  (req, res, next) => {
    // The template is known only inside the matched route (metrics, error logs; see rest/http.ts `route`).
    res.locals.routeTemplate = routeTemplate(req);
    fn(req, res).catch(next);
  };

/** Client credentials of an `Authorization: Basic` header (URL-encoded id and secret), if any. */
export function basicCredentials(req: express.Request): { clientId: string; secret: string } | undefined {
  const auth = req.headers.authorization;
  if (!auth?.toLowerCase().startsWith('basic ')) return undefined;
  const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i > 0 ? { clientId: formDecoded(decoded.slice(0, i)), secret: formDecoded(decoded.slice(i + 1)) } : undefined;
}

/** A URL-encoded credential; one that does not decode is taken as it is (and then matches no client). */
function formDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
