import { parse as parseCookieHeader } from 'cookie';
import express, { Router } from 'express';
import { HttpError } from '../core/errors';
import { hasBadText } from '../core/input-text';
import { logServerFault, requestIdOf, routeTemplate } from '../core/server-errors';
import type { Db } from '../db';
import type { RealmModel } from '../db/models/realm';
import { getLogger } from '../logging';
import { type BrowserRequest, type BrowserResponse, authorize, loginAction } from '../services/login/login';
import { logout } from '../services/login/logout';
import { actionToken, resetCredentials } from '../services/login/action-tokens';
import { brokerEndpoint, brokerLogin } from '../services/login/broker/broker-endpoints';
import { registrationAction, registrations } from '../services/login/registration-entry';
import { renderBareError, renderFormPost, renderPage } from './login-pages';

const log = getLogger('idserver.oidc.login');

/**
 * The browser endpoints of a realm (issue 14, ADR 28): the authorization endpoint, the login forms'
 * actions and RP-initiated logout. This front parses the request (query or form), reads and sets the
 * cookies (HttpOnly, SameSite=Lax, Path=/realms/{realm}/, Secure over https), adds the realm's
 * browser security headers and `Cache-Control: no-store`, and renders what the service decided.
 * Nothing here answers JSON or a 500 to a browser: every failure is an HTML page.
 */
const COOKIE_NAMES = ['AUTH_SESSION_ID', 'KEYCLOAK_IDENTITY', 'KEYCLOAK_SESSION', 'KEYCLOAK_LOCALE'];

/** The login's cookies of a Cookie header (the first of a repeated name; one that does not decode stays as sent). */
function parseCookies(header: string | undefined): Record<string, string> {
  const all = parseCookieHeader(header ?? '');
  const out: Record<string, string> = {};
  for (const name of COOKIE_NAMES) if (typeof all[name] === 'string') out[name] = all[name] as string;
  return out;
}

/** One string per parameter (the first of a repeated one); anything else is dropped. */
function flatten(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source || typeof source !== 'object') return out;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (typeof first === 'string') out[k] = first;
  }
  return out;
}

/** Every value of each posted parameter, in order (repeated inputs of one name: a multi-valued profile attribute). */
function lists(source: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!source || typeof source !== 'object') return out;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    const all = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
    if (all.length) out[k] = all;
  }
  return out;
}

const HEADER_OF: Record<string, string> = {
  xFrameOptions: 'X-Frame-Options',
  contentSecurityPolicy: 'Content-Security-Policy',
  contentSecurityPolicyReportOnly: 'Content-Security-Policy-Report-Only',
  xContentTypeOptions: 'X-Content-Type-Options',
  referrerPolicy: 'Referrer-Policy',
  strictTransportSecurity: 'Strict-Transport-Security',
  xRobotsTag: 'X-Robots-Tag',
};

const DEFAULT_HEADERS: Record<string, string> = {
  xFrameOptions: 'SAMEORIGIN',
  contentSecurityPolicy: "frame-src 'self'; frame-ancestors 'self'; object-src 'none';",
  xContentTypeOptions: 'nosniff',
  referrerPolicy: 'no-referrer',
  strictTransportSecurity: 'max-age=31536000; includeSubDomains',
  xRobotsTag: 'none',
};

/** A CSP with `sources` added to its frame-src directive (Keycloak's allowFrameSrc); one without frame-src is left as it is. */
function withFrameSrc(csp: string, sources: string[]): string {
  if (!sources.length) return csp;
  return csp
    .split(';')
    .map((d) => (/^\s*frame-src(\s|$)/i.test(d) ? `${d.trimEnd()} ${sources.join(' ')}` : d))
    .join(';');
}

function securityHeaders(res: express.Response, realm: RealmModel | undefined, frameSrc: string[] = []): void {
  const configured = realm?.settings.browserSecurityHeaders;
  const headers = configured && typeof configured === 'object' ? (configured as Record<string, unknown>) : DEFAULT_HEADERS;
  for (const [key, name] of Object.entries(HEADER_OF)) {
    const v = headers[key];
    if (typeof v === 'string' && v.trim()) res.setHeader(name, key === 'contentSecurityPolicy' ? withFrameSrc(v, frameSrc) : v);
  }
  res.setHeader('Cache-Control', 'no-store, must-revalidate, max-age=0');
  res.setHeader('Pragma', 'no-cache');
}

function setCookies(res: express.Response, out: BrowserResponse, realmName: string, secure: boolean): void {
  for (const c of out.cookies) {
    const options: express.CookieOptions = {
      path: `/realms/${encodeURIComponent(realmName)}/`,
      sameSite: 'lax',
      httpOnly: c.httpOnly,
      secure,
    };
    if (c.maxAge === 0) res.clearCookie(c.name, options);
    else res.cookie(c.name, c.value, c.maxAge > 0 ? { ...options, maxAge: c.maxAge * 1000 } : options);
  }
}

/** Sends what the service decided: a page, a redirect (302) or the form_post page. */
function send(req: express.Request, res: express.Response, out: BrowserResponse, baseUrl: string): void {
  securityHeaders(res, out.realm, out.kind === 'page' ? out.frameSrc : undefined);
  setCookies(res, out, String(req.params.realm), baseUrl.startsWith('https:'));
  if (out.kind === 'redirect') {
    res.redirect(302, out.location);
    return;
  }
  if (out.kind === 'form_post') {
    res.status(200).type('html').send(renderFormPost(out.action, out.fields));
    return;
  }
  const localeLink = (locale: string) => {
    const u = new URL(req.originalUrl, baseUrl);
    if (out.formAction) return `${out.formAction}&kc_locale=${encodeURIComponent(locale)}`;
    if (req.method !== 'GET') return '';
    u.searchParams.set('kc_locale', locale);
    return `${u.pathname}${u.search}`;
  };
  const { status, html } = renderPage(out, localeLink);
  res.status(status).type('html').send(html);
}

/** `/realms/{realm}/...`: the browser login and logout endpoints. */
export function loginRouter(db: Db, baseUrlOf: (req: express.Request) => string): Router {
  const r = Router();
  const parseForm = express.urlencoded({ extended: false, limit: '64kb' });
  // A form body that does not parse (or is too large) is a 400 page, never a 500 or another router's JSON.
  const form: express.RequestHandler = (req, res, next) =>
    parseForm(req, res, (err?: unknown) => {
      if (!err) {
        next();
        return;
      }
      const status = (err as { status?: number }).status;
      securityHeaders(res, undefined);
      const page = renderBareError(typeof status === 'number' && status < 500 ? status : 400, 'The request could not be read.');
      res.status(page.status).type('html').send(page.html);
    });

  const browser =
    (fn: (input: BrowserRequest, req: express.Request) => Promise<BrowserResponse>): express.RequestHandler =>
    (req, res) => {
      res.locals.routeTemplate = routeTemplate(req);
      const baseUrl = baseUrlOf(req);
      const params = { ...flatten(req.query), ...(req.method === 'POST' ? flatten(req.body) : {}) };
      const fail = (status: number, message: string) => {
        securityHeaders(res, undefined);
        const page = renderBareError(status, message);
        res.status(page.status).type('html').send(page.html);
      };
      const formValues = req.method === 'POST' ? lists(req.body) : undefined;
      const repeated = Object.values(formValues ?? {}).flatMap((v) => v.slice(1));
      if (Object.entries(params).some(([k, v]) => hasBadText(k) || hasBadText(v)) || repeated.some(hasBadText)) {
        fail(400, 'Invalid parameter: text must not contain NUL characters or unpaired surrogates');
        return;
      }
      const input: BrowserRequest = {
        realm: String(req.params.realm),
        baseUrl,
        params,
        cookies: parseCookies(req.headers.cookie),
        ipAddress: req.ip,
        acceptLanguage: req.headers['accept-language'],
        method: req.method,
        ...(formValues ? { formValues } : {}),
      };
      fn(input, req).then(
        (out) => send(req, res, out, baseUrl),
        (e: unknown) => {
          if (e instanceof HttpError && e.status < 500) {
            fail(e.status, String(e.body.error_description ?? e.body.error ?? e.body.errorMessage ?? 'Bad request'));
            return;
          }
          logServerFault(log, { method: req.method, route: String(res.locals.routeTemplate), requestId: requestIdOf(req) }, e);
          fail(500, 'An unexpected error happened while handling your request.');
        },
      );
    };

  const auth = browser((input) => authorize(db, input));
  r.get('/:realm/protocol/openid-connect/auth', auth);
  r.post('/:realm/protocol/openid-connect/auth', form, auth);

  const actions = browser((input, req) =>
    loginAction(db, input, req.method === 'POST' ? flatten(req.body) : undefined, req.path.split('/').pop()),
  );
  r.get('/:realm/login-actions/authenticate', actions);
  r.post('/:realm/login-actions/authenticate', form, actions);
  r.get('/:realm/login-actions/required-action', actions);
  r.post('/:realm/login-actions/required-action', form, actions);
  r.get('/:realm/login-actions/consent', actions);
  r.post('/:realm/login-actions/consent', form, actions);

  // Self-registration: the login page's "Register" link and its form, and the registrations entry point (an invitation's link).
  const register = browser((input, req) => registrationAction(db, input, req.method === 'POST' ? flatten(req.body) : undefined));
  r.get('/:realm/login-actions/registration', register);
  r.post('/:realm/login-actions/registration', form, register);
  const registrationsEntry = browser((input) => registrations(db, input));
  r.get('/:realm/protocol/openid-connect/registrations', registrationsEntry);
  r.post('/:realm/protocol/openid-connect/registrations', form, registrationsEntry);

  // The links of the e-mails (execute-actions, verify-email): a GET from a mail client.
  const link = browser((input) => actionToken(db, input));
  r.get('/:realm/login-actions/action-token', link);
  r.post('/:realm/login-actions/action-token', form, link);
  r.get(
    '/:realm/login-actions/reset-credentials',
    browser((input) => resetCredentials(db, input)),
  );

  // Identity brokering: the login page's links to a provider, and the provider's callback.
  const brokerStart = browser((input, req) => brokerLogin(db, input, String(req.params.alias)));
  r.get('/:realm/broker/:alias/login', brokerStart);
  r.post('/:realm/broker/:alias/login', form, brokerStart);
  const callback = browser((input, req) => brokerEndpoint(db, input, String(req.params.alias)));
  r.get('/:realm/broker/:alias/endpoint', callback);
  r.post('/:realm/broker/:alias/endpoint', form, callback);

  const end = browser((input) => logout(db, input, false));
  r.get('/:realm/protocol/openid-connect/logout', end);
  r.post('/:realm/protocol/openid-connect/logout', form, end);
  r.post(
    '/:realm/protocol/openid-connect/logout/logout-confirm',
    form,
    browser((input) => logout(db, input, true)),
  );
  return r;
}
