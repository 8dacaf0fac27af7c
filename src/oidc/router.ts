import type { KeyObject } from 'node:crypto';
import express, { Router } from 'express';
import type { Db } from '../db';
import { HttpError, errorC } from '../core/errors';
import { tokenEndpoint } from '../services/tokens/token-endpoint';
import { issuerOf } from '../services/tokens/tokens';
import { realmKeys } from '../services/tokens/realm-keys';

/** `/realms/{realm}/...`: the token endpoint, JWKS and OpenID discovery. */
export function oidcRouter(db: Db, baseUrlOf: (req: express.Request) => string): Router {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: '1mb' });

  r.post('/:realm/protocol/openid-connect/token', form, async (req, res, next) => {
    try {
      let basic: { clientId: string; secret: string } | undefined;
      const auth = req.headers.authorization;
      if (auth?.toLowerCase().startsWith('basic ')) {
        const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
        const i = decoded.indexOf(':');
        if (i > 0) basic = { clientId: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
      }
      const body = (req.body ?? {}) as Record<string, string>;
      const out = await tokenEndpoint(db, { realm: req.params.realm, form: body, basic, baseUrl: baseUrlOf(req), ipAddress: req.ip });
      res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json(out);
    } catch (e) {
      next(e);
    }
  });

  r.get('/:realm/protocol/openid-connect/certs', async (req, res, next) => {
    try {
      const realm = await db.models.Realm.findOne({ where: { name: req.params.realm } });
      if (!realm) throw errorC(404, 'Realm does not exist');
      // Every public key a client may need: RSA, EC and OKP signing and encryption keys (secrets never).
      const keys = (await realmKeys(db, realm.id)).filter((k) => k.type !== 'OCT' && k.status !== 'DISABLED' && k.publicKey);
      res.set('Cache-Control', 'no-cache').json({
        keys: keys.map((k) => {
          const { kty, n, e, crv, x, y } = (k.publicKey as KeyObject).export({ format: 'jwk' }) as Record<string, string>;
          return {
            kid: k.kid,
            kty,
            alg: k.algorithm,
            use: k.use === 'SIG' ? 'sig' : 'enc',
            ...(k.certificate ? { x5c: [k.certificate] } : {}),
            ...(kty === 'RSA' ? { n, e } : { crv, x, ...(y ? { y } : {}) }),
          };
        }),
      });
    } catch (e) {
      next(e);
    }
  });

  r.get('/:realm/.well-known/openid-configuration', async (req, res, next) => {
    try {
      const realm = await db.models.Realm.findOne({ where: { name: req.params.realm } });
      if (!realm) throw errorC(404, 'Realm does not exist');
      const iss = issuerOf(baseUrlOf(req), realm.name);
      const oidc = `${iss}/protocol/openid-connect`;
      res.json({
        issuer: iss,
        authorization_endpoint: `${oidc}/auth`,
        token_endpoint: `${oidc}/token`,
        jwks_uri: `${oidc}/certs`,
        grant_types_supported: ['password', 'client_credentials', 'refresh_token'],
        response_types_supported: [
          'code',
          'none',
          'id_token',
          'token',
          'id_token token',
          'code id_token',
          'code token',
          'code id_token token',
        ],
        subject_types_supported: ['public', 'pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
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
      });
    } catch (e) {
      next(e);
    }
  });

  r.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (err instanceof HttpError) res.status(err.status).json(err.body);
    else next(err);
  });
  return r;
}
