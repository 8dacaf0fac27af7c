import { type Request, Router } from 'express';
import { ldapServerCapabilities, parseTestLdapInput, testLdapConnection } from '../../src/services/user-storage/ldap-test';
import { ctxOf, json, noContent, rawBody, realmOf, requiredJson, route } from '../http';

/**
 * `POST /admin/realms/{realm}/testLDAPConnection` (JSON, or the deprecated form fields) and
 * `POST /admin/realms/{realm}/ldap-server-capabilities`.
 */
export const testLdapRouter = Router({ mergeParams: true });
export const ldapCapabilitiesRouter = Router({ mergeParams: true });

function inputOf(req: Request) {
  if (/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? ''))
    return parseTestLdapInput(Object.fromEntries(new URLSearchParams(rawBody(req))));
  return parseTestLdapInput(requiredJson(req));
}

testLdapRouter.post(
  '/',
  route(async (req, res) => {
    await testLdapConnection(ctxOf(res), realmOf(res), inputOf(req));
    noContent(res);
  }),
);
ldapCapabilitiesRouter.post(
  '/',
  route(async (req, res) => json(res, await ldapServerCapabilities(ctxOf(res), realmOf(res), inputOf(req)))),
);
