import { registerEnumType } from 'type-graphql';
import {
  EVENT_TYPE_DESCRIPTIONS,
  EVENT_TYPES,
  OPERATION_TYPE_DESCRIPTIONS,
  OPERATION_TYPES,
  RESOURCE_TYPE_DESCRIPTIONS,
  RESOURCE_TYPES,
} from '../../src/keycloak/event-types';

/**
 * Enums of the gateway for Keycloak's closed sets, built from the catalogues so they stay in step
 * with what the services accept. A value's GraphQL name is Keycloak's own constant; its description
 * comes from the catalogue (typed there, so a value without one does not compile).
 */
const enumOf = (values: Iterable<string>): Record<string, string> => Object.fromEntries([...values].map((v) => [v, v]));

/** type-graphql's per-value configuration: each value with its description. */
const described = (values: Iterable<string>, descriptions: Readonly<Record<string, string>>) =>
  Object.fromEntries([...values].map((v) => [v, { description: descriptions[v] }]));

export const EventType = enumOf(EVENT_TYPES);
registerEnumType(EventType, {
  name: 'EventType',
  description: 'Type of a user (login) event, as Keycloak names it.',
  valuesConfig: described(EVENT_TYPES, EVENT_TYPE_DESCRIPTIONS),
});

export const OperationType = enumOf(OPERATION_TYPES);
registerEnumType(OperationType, {
  name: 'OperationType',
  description: 'What an admin event did.',
  valuesConfig: described(OPERATION_TYPES, OPERATION_TYPE_DESCRIPTIONS),
});

export const ResourceType = enumOf(RESOURCE_TYPES);
registerEnumType(ResourceType, {
  name: 'ResourceType',
  description: 'What kind of object an admin event changed.',
  valuesConfig: described(RESOURCE_TYPES, RESOURCE_TYPE_DESCRIPTIONS),
});

export enum SortDirection {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(SortDirection, {
  name: 'SortDirection',
  description: 'Ascending or descending.',
  valuesConfig: {
    ASC: { description: 'Ascending: oldest or smallest first.' },
    DESC: { description: 'Descending: newest or largest first.' },
  },
});

/*
 * Closed sets of values of OUTPUT fields. Inputs keep taking the strings of the REST API (the services
 * validate them as REST does); an output enum's internal value is the REST wire value, so a resolver
 * returns the representation unchanged and GraphQL prints the name.
 */

/** How an execution of an authentication flow takes part in it (Keycloak Requirement). */
export enum AuthenticationRequirement {
  REQUIRED = 'REQUIRED',
  ALTERNATIVE = 'ALTERNATIVE',
  DISABLED = 'DISABLED',
  CONDITIONAL = 'CONDITIONAL',
}
registerEnumType(AuthenticationRequirement, {
  name: 'AuthenticationRequirement',
  description: 'How an execution takes part in its flow (the REST value is the same name).',
  valuesConfig: {
    REQUIRED: { description: 'Must succeed for the flow to succeed.' },
    ALTERNATIVE: { description: 'One of the alternatives at this level must succeed.' },
    DISABLED: { description: 'Not run.' },
    CONDITIONAL: { description: 'A subflow that runs only when its conditions hold.' },
  },
});

/** The protocol of a client, client scope or protocol mapper. */
export enum Protocol {
  OPENID_CONNECT = 'openid-connect',
  SAML = 'saml',
  DOCKER_V2 = 'docker-v2',
  OID4VC = 'oid4vc',
}
registerEnumType(Protocol, {
  name: 'Protocol',
  description: 'A login protocol. REST spells it in lower case with dashes (the wire value given for each).',
  valuesConfig: {
    OPENID_CONNECT: { description: 'OpenID Connect / OAuth 2.0; REST value `openid-connect`.' },
    SAML: { description: 'SAML 2.0; REST value `saml`.' },
    DOCKER_V2: { description: 'Docker registry v2 token authentication; REST value `docker-v2`.' },
    OID4VC: { description: 'OpenID for Verifiable Credentials (client scopes only); REST value `oid4vc`.' },
  },
});

/** Whether a realm key is used (Keycloak KeyStatus). */
export enum KeyStatus {
  ACTIVE = 'ACTIVE',
  PASSIVE = 'PASSIVE',
  DISABLED = 'DISABLED',
}
registerEnumType(KeyStatus, {
  name: 'KeyStatus',
  description: 'Whether a realm key is used (the REST value is the same name).',
  valuesConfig: {
    ACTIVE: { description: 'Signs or encrypts new tokens, and verifies.' },
    PASSIVE: { description: 'Only verifies tokens issued before; signs nothing new.' },
    DISABLED: { description: 'Not used at all.' },
  },
});

/** What a realm key is for (Keycloak KeyUse). */
export enum KeyUse {
  SIG = 'SIG',
  ENC = 'ENC',
}
registerEnumType(KeyUse, {
  name: 'KeyUse',
  description: 'What a realm key is for (the REST value is the same name; the JWKS spells it `sig`/`enc`).',
  valuesConfig: {
    SIG: { description: 'Signing (and verifying) tokens.' },
    ENC: { description: 'Encryption (and decryption).' },
  },
});

/** The kind of a realm key (Keycloak KeyType). */
export enum KeyType {
  RSA = 'RSA',
  EC = 'EC',
  OCT = 'OCT',
  OKP = 'OKP',
}
registerEnumType(KeyType, {
  name: 'KeyType',
  description: 'The kind of a realm key (the REST value is the same name).',
  valuesConfig: {
    RSA: { description: 'An RSA key pair.' },
    EC: { description: 'An elliptic-curve key pair (ECDSA or ECDH).' },
    OCT: { description: 'A symmetric secret (HMAC or AES).' },
    OKP: { description: 'An octet key pair (EdDSA, e.g. Ed25519).' },
  },
});

/** When a realm requires HTTPS (Keycloak SslRequired); REST spells the values in lower case. */
export enum SslRequired {
  ALL = 'all',
  EXTERNAL = 'external',
  NONE = 'none',
}
registerEnumType(SslRequired, {
  name: 'SslRequired',
  description: 'When a realm requires HTTPS. REST spells the values in lower case (`all`, `external`, `none`).',
  valuesConfig: {
    ALL: { description: 'Every request, from any address.' },
    EXTERNAL: { description: 'Requests from public addresses; private and loopback addresses may use HTTP (the default).' },
    NONE: { description: 'Never; HTTP is accepted from anywhere.' },
  },
});

/** How brute-force detection lengthens the wait after failures (Keycloak BruteForceStrategy). */
export enum BruteForceStrategy {
  LINEAR = 'LINEAR',
  MULTIPLE = 'MULTIPLE',
}
registerEnumType(BruteForceStrategy, {
  name: 'BruteForceStrategy',
  description: 'How brute-force detection lengthens the wait after each further failure.',
  valuesConfig: {
    LINEAR: { description: 'The wait grows with each failure past failureFactor.' },
    MULTIPLE: { description: 'The wait grows every failureFactor failures (the default).' },
  },
});

/**
 * Fields of the representation tables whose GraphQL type is an enum, in inputs and outputs alike:
 * `Representation.field` → enum. The tables keep Keycloak's Java types (a String stays a string on
 * REST, read and checked by the service); GraphQL names the closed set. Required actions and
 * credential types stay strings: a realm exported from Keycloak may carry custom providers' aliases.
 */
export const FIELD_ENUMS: Readonly<Record<string, object>> = {
  'RealmRepresentation.sslRequired': SslRequired,
  'RealmRepresentation.bruteForceStrategy': BruteForceStrategy,
  'ClientRepresentation.protocol': Protocol,
  'ClientScopeRepresentation.protocol': Protocol,
  'ProtocolMapperRepresentation.protocol': Protocol,
};
