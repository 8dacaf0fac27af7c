import { createHash, type KeyObject } from 'node:crypto';
import type { JSONWebKeySet } from 'jose';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { errorC } from '../../core/errors';
import { realmKeys, realmWithVersion } from '../../auth/realm-keys';
import { issuerOf } from '../../core/issuer';
import type { OidcDiscoveryDocument } from '../../representations/oidc';
import { DPOP_ALGORITHMS } from './dpop';
import {
  AUTHORIZATION_ENCRYPTION_ALGS,
  AUTHORIZATION_ENCRYPTION_ENCS,
  RESPONSE_MODES_SUPPORTED,
  RESPONSE_TYPES_SUPPORTED,
} from '../login/response-types';
import { CIBA_GRANT_TYPE, CIBA_REQUEST_ALGS } from './ciba-channel';

/**
 * What the public OIDC endpoints of a realm publish (reference §2): the realm by name, its JSON Web
 * Key Set and its OpenID discovery document.
 */

/** The algorithms a client may sign a request object with (its JWKS, certificate or secret; `none` when the client allows it). */
const REQUEST_OBJECT_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'HS256',
  'HS384',
  'HS512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'none',
];

/** Key management and content encryption of the JWE an ID token or userinfo answer is sent in (signing.ts encryptForClient). */
const JWE_ALGS = ['ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A192KW', 'ECDH-ES+A256KW', 'RSA-OAEP', 'RSA-OAEP-256', 'RSA1_5'];
const JWE_ENCS = ['A128CBC-HS256', 'A128GCM', 'A192CBC-HS384', 'A192GCM', 'A256CBC-HS512', 'A256GCM'];

/** The realm of a public endpoint (`/realms/{realm}/...`): 404 `Realm does not exist`. */
export async function publicRealm(db: Db, name: string): Promise<RealmModel> {
  const realm = await realmWithVersion(db, name);
  if (!realm) throw errorC(404, 'Realm does not exist');
  return realm;
}

/** GET /realms/{realm}/protocol/openid-connect/certs: every public key a client may need (RSA, EC, OKP; secrets never). */
const thumbprints = (certificate: string) => {
  const der = Buffer.from(certificate, 'base64');
  return {
    x5t: createHash('sha1').update(der).digest('base64url'),
    'x5t#S256': createHash('sha256').update(der).digest('base64url'),
  };
};

export async function realmJwks(db: Db, name: string): Promise<JSONWebKeySet> {
  const realm = await publicRealm(db, name);
  const keys = (await realmKeys(db, realm)).filter((k) => k.type !== 'OCT' && k.status !== 'DISABLED' && k.publicKey);
  return {
    keys: keys.map((k) => {
      const { kty, n, e, crv, x, y } = (k.publicKey as KeyObject).export({ format: 'jwk' }) as Record<string, string>;
      return {
        kid: k.kid,
        kty,
        alg: k.algorithm,
        use: k.use === 'SIG' ? 'sig' : 'enc',
        // Keycloak's JWKBuilder: the certificate chain and its SHA-1 / SHA-256 thumbprints.
        ...(k.certificate ? { x5c: [k.certificate], ...thumbprints(k.certificate) } : {}),
        ...(kty === 'RSA' ? { n, e } : { crv, x, ...(y ? { y } : {}) }),
      };
    }),
  };
}

/**
 * GET /realms/{realm}/.well-known/openid-configuration: the OpenID discovery document, listing only
 * what this server serves: the token endpoint (password, client-credentials and refresh grants), the
 * userinfo, introspection and revocation endpoints (with their client authentication methods and
 * userinfo signing algorithms) and the key set, client secrets (basic or post), the browser login (authorization endpoint: the code,
 * implicit and hybrid response types in the query, fragment, form_post and JWT (JARM) modes, responses
 * signed with any algorithm of an active realm key and encrypted as JOSE allows, PKCE S256 and plain;
 * end-session endpoint), and as
 * signing algorithms those of the realm's enabled signing keys (an ES256 realm says ES256), pushed
 * authorization requests and request objects.
 */
export async function discoveryDocument(
  db: Db,
  name: string,
  baseUrl: string,
  served: { ciba?: boolean } = {},
): Promise<OidcDiscoveryDocument> {
  const realm = await publicRealm(db, name);
  const iss = issuerOf(baseUrl, realm.name);
  const oidc = `${iss}/protocol/openid-connect`;
  // Tokens are signed with the realm's asymmetric keys (its HMAC key signs only internal tokens).
  const signing = (await realmKeys(db, realm)).filter((k) => k.use === 'SIG' && k.type !== 'OCT' && k.status !== 'DISABLED' && k.algorithm);
  const algorithms = [...new Set(signing.map((k) => k.algorithm as string))].sort();
  // JARM responses are signed by the realm's active key of the client's algorithm, HMAC ones included.
  const active = (await realmKeys(db, realm)).filter((k) => k.use === 'SIG' && k.status === 'ACTIVE' && k.algorithm);
  const responseAlgorithms = [...new Set(active.map((k) => k.algorithm))].sort();
  return {
    issuer: iss,
    authorization_endpoint: `${oidc}/auth`,
    token_endpoint: `${oidc}/token`,
    introspection_endpoint: `${oidc}/token/introspect`,
    userinfo_endpoint: `${oidc}/userinfo`,
    jwks_uri: `${oidc}/certs`,
    grant_types_supported: [
      'authorization_code',
      'implicit',
      'password',
      'client_credentials',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:uma-ticket',
      ...(served.ciba ? [CIBA_GRANT_TYPE] : []),
    ],
    response_types_supported: RESPONSE_TYPES_SUPPORTED,
    response_modes_supported: RESPONSE_MODES_SUPPORTED,
    code_challenge_methods_supported: ['plain', 'S256'],
    // Keycloak's OIDCWellKnownProvider: `create` (prompt=create opens the registration form) only when the realm allows registration.
    prompt_values_supported: ['none', 'login', 'consent', ...(realm.settings.registrationAllowed === true ? ['create'] : [])],
    end_session_endpoint: `${oidc}/logout`,
    // Served: the logout page's iframes (iss, sid) and logout tokens POSTed to backchannel.logout.url (with sid).
    frontchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    subject_types_supported: ['public', 'pairwise'],
    id_token_signing_alg_values_supported: algorithms,
    authorization_signing_alg_values_supported: responseAlgorithms,
    authorization_encryption_alg_values_supported: AUTHORIZATION_ENCRYPTION_ALGS,
    authorization_encryption_enc_values_supported: AUTHORIZATION_ENCRYPTION_ENCS,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
    userinfo_signing_alg_values_supported: [...algorithms, 'none'],
    id_token_encryption_alg_values_supported: JWE_ALGS,
    id_token_encryption_enc_values_supported: JWE_ENCS,
    userinfo_encryption_alg_values_supported: JWE_ALGS,
    userinfo_encryption_enc_values_supported: JWE_ENCS,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
    revocation_endpoint: `${oidc}/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
    registration_endpoint: `${iss}/clients-registrations/openid-connect`,
    scopes_supported: [
      'openid',
      'profile',
      'email',
      'address',
      'phone',
      'offline_access',
      'roles',
      'web-origins',
      'acr',
      'basic',
      'microprofile-jwt',
    ],
    claims_supported: ['aud', 'sub', 'iss', 'auth_time', 'name', 'given_name', 'family_name', 'preferred_username', 'email', 'acr'],
    pushed_authorization_request_endpoint: `${oidc}/ext/par/request`,
    require_pushed_authorization_requests: false,
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
    require_request_uri_registration: true,
    request_object_signing_alg_values_supported: REQUEST_OBJECT_ALGS,
    request_object_encryption_alg_values_supported: JWE_ALGS,
    request_object_encryption_enc_values_supported: JWE_ENCS,
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    tls_client_certificate_bound_access_tokens: true,
    // CIBA (ADR 0044), when the server has an authentication channel to send requests to.
    ...(served.ciba
      ? {
          backchannel_token_delivery_modes_supported: ['poll', 'ping'],
          backchannel_authentication_endpoint: `${oidc}/ext/ciba/auth`,
          backchannel_authentication_request_signing_alg_values_supported: CIBA_REQUEST_ALGS,
        }
      : {}),
  };
}
