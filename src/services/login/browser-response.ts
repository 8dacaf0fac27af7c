import { createHmac, timingSafeEqual } from 'node:crypto';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { ActionPage } from './required-actions';
import type { Message } from './authorize';
import type { Page } from './flow-engine';
import { chooseLocale, supportedLocales, textsFor } from './messages';

/**
 * What a browser request to the login gives (login.ts and the other browser endpoints decide, the
 * HTTP front renders): the response kinds, the signed AUTH_SESSION_ID root, the authorization
 * response to a client's redirect URI, and the realm's pages in the request's locale.
 */
/** A cookie the front sets (maxAge 0 clears it). */
export interface CookieOp {
  name: 'AUTH_SESSION_ID' | 'KEYCLOAK_IDENTITY' | 'KEYCLOAK_SESSION' | 'KEYCLOAK_LOCALE';
  value: string;
  maxAge: number;
  httpOnly: boolean;
}

/** What the browser gets: a page, a redirect, or an auto-submitted form (response_mode=form_post). */
export type BrowserResponse = (
  | {
      kind: 'page';
      page: Page | InfoPage;
      formAction?: string;
      /** The identity providers a login form offers, with their broker login URLs. */
      providers?: Array<{ alias: string; displayName: string; url: string }>;
      locale: string;
      locales: string[];
      texts: Record<string, string>;
      /** Origins the page may frame besides its own (the CSP's frame-src, front-channel logout). */
      frameSrc?: string[];
    }
  | { kind: 'redirect'; location: string }
  | { kind: 'form_post'; action: string; fields: Record<string, string> }
) & { realm?: RealmModel; cookies: CookieOp[] };

/** A page that only informs (required actions pending, logged out, logout confirmation). */
export type InfoPage =
  | { page: 'info'; status: number; title: Message; message: Message; backUrl?: string; actionUrl?: string }
  | { page: 'logout-confirm'; status: number; action: string; fields: Record<string, string> }
  /** The logout page of front-channel logout: a hidden iframe per client URL, then on to the post-logout redirect. */
  | { page: 'frontchannel-logout'; status: number; apps: Array<{ name: string; url: string }>; redirect?: string }
  | ActionPage;

/** The parts of a browser request the login reads. */
export interface BrowserRequest {
  realm: string;
  baseUrl: string;
  params: Record<string, string | undefined>;
  cookies: Record<string, string | undefined>;
  ipAddress?: string;
  acceptLanguage?: string;
  /** The HTTP method (GET or POST). */
  method?: string;
  /** A POST's parameters with every value of a repeated one (`params` keeps the first). */
  formValues?: Record<string, string[]>;
}

/** The signed AUTH_SESSION_ID value of a root id: `root.signature`. */
export async function signRoot(db: Db, realm: RealmModel, rootId: string): Promise<string> {
  const key = activeKey(await realmKeys(db, realm), 'HS512')?.secret as Uint8Array | undefined;
  if (!key) throw new Error('The realm has no active HMAC key');
  return `${rootId}.${createHmac('sha256', key).update(`auth-session|${rootId}`).digest('base64url')}`;
}

/** The root id of a signed AUTH_SESSION_ID cookie, or undefined when it is absent or forged. */
export async function rootOf(db: Db, realm: RealmModel, cookie: string | undefined): Promise<string | undefined> {
  if (!cookie || cookie.length > 200) return undefined;
  const root = cookie.split('.')[0];
  const expected = Buffer.from(await signRoot(db, realm, root));
  const got = Buffer.from(cookie);
  return expected.length === got.length && timingSafeEqual(expected, got) ? root : undefined;
}

/** The response a client's redirect URI gets, in a plain response mode (the JWT modes: authorization-response.ts). */
export function authorizationResponse(
  redirectUri: string,
  mode: 'query' | 'fragment' | 'form_post',
  params: Record<string, string | undefined>,
): { kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) fields[k] = v;
  if (mode === 'form_post') return { kind: 'form_post', action: redirectUri, fields };
  const query = new URLSearchParams(fields).toString();
  if (mode === 'fragment') return { kind: 'redirect', location: `${redirectUri}#${query}` };
  return { kind: 'redirect', location: `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query}` };
}

/** Locale and texts of a page of the realm, and the cookie that remembers a language picked with kc_locale. */
async function pageTexts(db: Db, realm: RealmModel, req: BrowserRequest, uiLocales?: string) {
  const locale = chooseLocale(realm, {
    kcLocale: req.params.kc_locale,
    cookie: req.cookies.KEYCLOAK_LOCALE,
    uiLocales,
    acceptLanguage: req.acceptLanguage,
  });
  const cookies: CookieOp[] =
    req.params.kc_locale && locale === req.params.kc_locale ? [{ name: 'KEYCLOAK_LOCALE', value: locale, maxAge: -1, httpOnly: true }] : [];
  return { locale, locales: supportedLocales(realm), texts: await textsFor(db, realm, locale), cookies };
}

/** A page of the realm (an error, information), in the request's locale. */
export async function realmPage(
  db: Db,
  realm: RealmModel,
  req: BrowserRequest,
  page: Page | InfoPage,
  uiLocales?: string,
): Promise<BrowserResponse> {
  const t = await pageTexts(db, realm, req, uiLocales);
  return { kind: 'page', page, locale: t.locale, locales: t.locales, texts: t.texts, realm, cookies: t.cookies };
}
