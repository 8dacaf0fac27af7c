import type { NextFunction, Request, Response } from 'express';
import type { RequestContext } from '../core/context';

/**
 * CORS of the admin fronts, as Keycloak's admin API does it: a preflight is answered without
 * authentication for any origin; an authenticated request from a browser gets CORS headers when its
 * token's `allowed-origins` claim (the client's web origins) holds its origin, or `*`.
 */
const ALLOWED_HEADERS =
  'Origin, Accept, X-Requested-With, Content-Type, Access-Control-Request-Method, Access-Control-Request-Headers, DPoP, Authorization';

/** Answers a CORS preflight (200, no body) allowing `methods`. */
export function preflight(methods: string, extraHeaders = ''): (req: Request, res: Response) => void {
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin) {
      res.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Credentials': 'true',
        'Access-Control-Allow-Methods': methods,
        'Access-Control-Allow-Headers': extraHeaders ? `${ALLOWED_HEADERS}, ${extraHeaders}` : ALLOWED_HEADERS,
        'Access-Control-Max-Age': '3600',
        Vary: 'Origin',
      });
    }
    res.status(200).end();
  };
}

/** After authentication: CORS headers when the caller's token allows the request's origin. */
export function corsForToken(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  const allowed = (res.locals.ctx as RequestContext | undefined)?.actor?.allowedOrigins ?? [];
  if (origin && (allowed.includes(origin) || allowed.includes('*'))) {
    res.set({
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Expose-Headers': 'Location, Content-Disposition',
      Vary: 'Origin',
    });
  }
  next();
}
