/**
 * Token contents. Claim names are chosen by protocol mappers (`a.b` nests), values are any JSON:
 * a claims object is free-form by nature, the registered claims below are the ones this server sets itself.
 */
export type Claims = Record<string, unknown>;

/** The payload of an access token, ID token or userinfo answer (evaluate-scopes examples, the token endpoint). */
export interface TokenPayload extends Claims {
  exp?: number;
  iat?: number;
  jti?: string;
  iss?: string;
  sub?: string;
  typ?: string;
  azp?: string;
  sid?: string;
  scope?: string;
  aud?: string | string[];
}
