/**
 * The `response_type` and `response_mode` of an authorization request, as Keycloak's OIDCResponseType
 * and OIDCResponseMode parse them: the values `code`, `token`, `id_token` (any combination) and
 * `none` (alone); the modes query, fragment, form_post and their JWT forms (JARM), `jwt` meaning the
 * flow's default JWT mode.
 */

export type ResponseMode = 'query' | 'fragment' | 'form_post' | 'query.jwt' | 'fragment.jwt' | 'form_post.jwt';

const MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt'];
const TYPES = new Set(['code', 'token', 'id_token', 'none']);

/** A parsed response type: its values in the order sent. */
export class ResponseType {
  private constructor(readonly values: readonly string[]) {}

  /** The parsed value, or undefined when Keycloak refuses it (`unsupported_response_type`). */
  static parse(param: string): ResponseType | undefined {
    const values = param.trim().split(' ');
    if (!values.every((v) => TYPES.has(v))) return undefined;
    if (values.includes('none') && values.length > 1) return undefined;
    return new ResponseType(values);
  }

  has(value: 'code' | 'token' | 'id_token' | 'none'): boolean {
    return this.values.includes(value);
  }

  /** `token` or `id_token` asked for: tokens travel through the browser. */
  get implicitOrHybrid(): boolean {
    return this.has('token') || this.has('id_token');
  }

  /** Tokens without a code. */
  get implicit(): boolean {
    return this.implicitOrHybrid && !this.has('code');
  }

  toString(): string {
    return this.values.join(' ');
  }
}

/** The response mode of a valid response type (OIDCResponseMode.parse): undefined for an unknown mode. */
export function parseResponseMode(param: string | undefined, type: ResponseType): ResponseMode | undefined {
  if (param === undefined || param === '') return type.implicitOrHybrid ? 'fragment' : 'query';
  if (param === 'jwt') return type.implicitOrHybrid ? 'fragment.jwt' : 'query.jwt';
  return MODES.find((m) => m === param);
}

/** The mode an error about the response type itself goes back in (OIDCResponseMode.parseWhenInvalidResponseType). */
export function modeForInvalidResponseType(param: string | undefined): ResponseMode {
  if (param === 'jwt') return 'query.jwt';
  return MODES.find((m) => m === param) ?? 'query';
}

/** Whether the mode sends a signed (JARM) `response` parameter. */
export const isJwtMode = (mode: ResponseMode): boolean => mode.endsWith('.jwt');

/** The response modes the authorization endpoint serves (discovery's response_modes_supported, Keycloak's order). */
export const RESPONSE_MODES_SUPPORTED = ['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt', 'jwt'];

/** The response types it serves (discovery's response_types_supported, as Keycloak lists them). */
export const RESPONSE_TYPES_SUPPORTED = [
  'code',
  'none',
  'id_token',
  'token',
  'id_token token',
  'code id_token',
  'code token',
  'code id_token token',
];

/** The encryption algorithms of authorization responses (discovery). */
export const AUTHORIZATION_ENCRYPTION_ALGS = [
  'RSA-OAEP',
  'RSA-OAEP-256',
  'RSA1_5',
  'ECDH-ES',
  'ECDH-ES+A128KW',
  'ECDH-ES+A192KW',
  'ECDH-ES+A256KW',
];
export const AUTHORIZATION_ENCRYPTION_ENCS = ['A128GCM', 'A192GCM', 'A256GCM', 'A128CBC-HS256', 'A192CBC-HS384', 'A256CBC-HS512'];
