/** The OpenID Provider Metadata of a realm (GET /realms/{realm}/.well-known/openid-configuration), the fields this server publishes. */
export interface OidcDiscoveryDocument {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  introspection_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  grant_types_supported: string[];
  response_types_supported: string[];
  response_modes_supported: string[];
  code_challenge_methods_supported: string[];
  prompt_values_supported: string[];
  end_session_endpoint: string;
  frontchannel_logout_session_supported: boolean;
  frontchannel_logout_supported: boolean;
  backchannel_logout_supported: boolean;
  backchannel_logout_session_supported: boolean;
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
  /** JARM (authorization responses as JWTs): signing algorithms of the realm's active keys, JWE algorithms. */
  authorization_signing_alg_values_supported: string[];
  authorization_encryption_alg_values_supported: string[];
  authorization_encryption_enc_values_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  userinfo_signing_alg_values_supported: string[];
  /** JWE of ID tokens and userinfo answers to the client's key (`*.encrypted.response.alg` / `.enc`). */
  id_token_encryption_alg_values_supported: string[];
  id_token_encryption_enc_values_supported: string[];
  userinfo_encryption_alg_values_supported: string[];
  userinfo_encryption_enc_values_supported: string[];
  introspection_endpoint_auth_methods_supported: string[];
  revocation_endpoint: string;
  revocation_endpoint_auth_methods_supported: string[];
  /** The client registration service (RFC 7591). */
  registration_endpoint: string;
  scopes_supported: string[];
  claims_supported: string[];
  /** Pushed authorization requests (RFC 9126). */
  pushed_authorization_request_endpoint: string;
  require_pushed_authorization_requests: boolean;
  /** Request objects (RFC 9101): by value and by reference (registered `request.uris` only). */
  request_parameter_supported: boolean;
  request_uri_parameter_supported: boolean;
  require_request_uri_registration: boolean;
  request_object_signing_alg_values_supported: string[];
  request_object_encryption_alg_values_supported: string[];
  request_object_encryption_enc_values_supported: string[];
  /** DPoP proofs (RFC 9449): the asymmetric algorithms a proof may be signed with. */
  dpop_signing_alg_values_supported: string[];
  /** RFC 8705: tokens can be bound to the client's TLS certificate (forwarded by the reverse proxy). */
  tls_client_certificate_bound_access_tokens: boolean;
  /** CIBA (ADR 0044), listed when the server has an authentication channel. */
  backchannel_token_delivery_modes_supported?: string[];
  backchannel_authentication_endpoint?: string;
  backchannel_authentication_request_signing_alg_values_supported?: string[];
}
