import { dirname, join } from 'node:path';
import { type Request, type Response, Router } from 'express';
import { APP_CSS, APP_JS, PAGE_HTML } from './graphiql-page';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const SOURCE_MAP = 'application/json; charset=utf-8';

/** A file of an installed package (its package.json locates it even where `exports` hides the file). */
const packageFile = (pkg: string, file: string) => join(dirname(require.resolve(`${pkg}/package.json`)), file);

/** Files of the installed packages the page loads, by the name it asks for: nothing comes from a CDN. */
const PACKAGE_ASSETS: Record<string, { file: string; type: string }> = {
  'react.production.min.js': { file: packageFile('react', 'umd/react.production.min.js'), type: JS },
  'react-dom.production.min.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: JS },
  'graphiql.min.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: JS },
  'graphiql.min.js.map': { file: packageFile('graphiql', 'graphiql.min.js.map'), type: SOURCE_MAP },
  'graphiql.min.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: CSS },
  'graphiql.min.css.map': { file: packageFile('graphiql', 'graphiql.min.css.map'), type: SOURCE_MAP },
};

/** The page's own files. */
const OWN_ASSETS: Record<string, { body: string; type: string }> = {
  'app.js': { body: APP_JS, type: JS },
  'app.css': { body: APP_CSS, type: CSS },
};

/** A Host header safe to repeat in the Content-Security-Policy (anything else: 'self' alone). */
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The page's Content-Security-Policy: scripts, styles, fonts and connections of this server only.
 * Styles may be inline (GraphiQL's components set them); the WebSocket origin of subscriptions is
 * named because older browsers do not count ws: as 'self'.
 */
function contentSecurityPolicy(req: Request): string {
  const host = req.get('host') ?? '';
  const ws = SAFE_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${ws}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Whether a GET to /graphql comes from a browser navigating to it (HTML preferred over JSON). */
function wantsPage(req: Request): boolean {
  return req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

function common(res: Response): void {
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Cache-Control', 'no-cache');
}

/**
 * The GraphiQL page (option `graphql-ui`, on in start-dev), mounted at /graphql before
 * authentication: a browser's GET of /graphql gets the page, whose scripts and styles are served
 * under /graphql/graphiql/ from the installed react, react-dom and graphiql packages. Loading it
 * needs no token; every query it sends does (the page explains how to get one). Any other request
 * (a POST, a GET asking for JSON, a WebSocket upgrade) goes on to the GraphQL server.
 */
export function graphiql(): Router {
  const r = Router();
  r.get('/', (req, res, next) => {
    if (!wantsPage(req)) {
      next();
      return;
    }
    common(res);
    res.set('Vary', 'Accept');
    res.set('Content-Security-Policy', contentSecurityPolicy(req));
    res.set('Referrer-Policy', 'no-referrer');
    res.set('X-Frame-Options', 'DENY');
    res.type('html').send(PAGE_HTML);
  });
  r.get('/graphiql/:file', (req, res, next) => {
    const name = String(req.params.file);
    const own = Object.hasOwn(OWN_ASSETS, name) ? OWN_ASSETS[name] : undefined;
    if (own) {
      common(res);
      res.type(own.type).send(own.body);
      return;
    }
    const pkg = Object.hasOwn(PACKAGE_ASSETS, name) ? PACKAGE_ASSETS[name] : undefined;
    if (!pkg) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    common(res);
    res.type(pkg.type);
    res.sendFile(pkg.file, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });
  return r;
}
