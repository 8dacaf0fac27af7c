import { createHmac, timingSafeEqual } from 'node:crypto';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { ResponseMode } from './authorize';

/**
 * The browser's side of a login that every endpoint shares: the signed AUTH_SESSION_ID cookie (the
 * root of a browser's logins) and the authorization response in the request's response mode.
 */

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

/** The response a client's redirect URI gets, in the request's response mode. */
export function authorizationResponse(
  redirectUri: string,
  mode: ResponseMode,
  params: Record<string, string | undefined>,
): { kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) fields[k] = v;
  if (mode === 'form_post') return { kind: 'form_post', action: redirectUri, fields };
  const query = new URLSearchParams(fields).toString();
  if (mode === 'fragment') return { kind: 'redirect', location: `${redirectUri}#${query}` };
  return { kind: 'redirect', location: `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query}` };
}
