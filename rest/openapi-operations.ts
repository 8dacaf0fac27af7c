import type { RepresentationName } from '../src/representations/schema';

/**
 * What the route table (the routers' `listRoutes()`) does not say about each admin route: the body it
 * reads, the query parameters it reads, and what it answers. rest/openapi.ts joins this table with the
 * route table and the representation field table into the OpenAPI document; test/rest/openapi.test.ts
 * fails when a route has no entry here or an entry names no route. Keys are `METHOD template` exactly as
 * express mounts them. Drafted from the handlers (jsonBody/arrayBody, qInt/qStr/qBool, created/noContent/json
 * and the services' return types); keep it in step when a handler changes.
 */

type Rep = RepresentationName;

/** A JSON shape the representation table does not describe: documented as `{}` with this description. */
export interface Untyped {
  json: string;
}
export const json = (description: string): Untyped => ({ json: description });

/** Keycloak's ManagementPermissionReference (fine-grained admin permissions, src/services/authz/admin-permissions.ts). */
const MGMT_REF = json(
  'ManagementPermissionReference: `enabled`, and when enabled `resource` (its id) and `scopePermissions` (scope name to permission id)',
);

/** A JSON body or answer: a representation (or an array of one), a small fixed shape, or an untyped one. */
export type Shape =
  | Rep
  | `${Rep}[]`
  | 'string[]'
  | 'integer'
  | 'boolean'
  /** `{ "count": n }` */
  | 'count'
  /** `[{ "id", "name" }]`: client scope links */
  | 'scopeRefs'
  | Untyped;

export type Body =
  | Shape
  /** text/plain */
  | 'text'
  /** multipart/form-data: a certificate or keystore file and its format */
  | 'multipart'
  /** a client description: Keycloak or OIDC JSON, or SAML metadata XML */
  | 'clientDescription'
  /** application/x-www-form-urlencoded (the token endpoint) */
  | 'form';

export type Answer =
  /** 201, `Location` names the new object, no body */
  | 'created'
  /** 201 with `Location` and a body */
  | { created: Shape }
  /** 204 */
  | 'none'
  /** 501 `Feature not enabled` (fine-grained admin permissions v1 are not implemented) */
  | 'notImplemented'
  /** 200 text/plain */
  | 'text'
  /** 200 application/octet-stream */
  | 'bytes'
  /** 200 with a content type that depends on the request */
  | { file: string }
  /** 200 application/json */
  | Shape;

export interface OperationSpec {
  body?: Body;
  query?: readonly QueryName[];
  res: Answer | readonly Answer[];
}

type Q = { type: 'string' | 'boolean' | 'int32' | 'string[]'; description: string };

/** The query parameters the handlers read, by name (qInt → int32, qBool → boolean, repeated → string[]). */
export const QUERY_PARAMS = {
  audience: { type: 'string', description: 'Audience of the example token.' },
  authClient: { type: 'string', description: 'Client id of the admin who acted.' },
  authIpAddress: { type: 'string', description: 'IP address of the admin who acted.' },
  action: { type: 'string', description: 'User-storage sync: `triggerFullSync` or `triggerChangedUsersSync`.' },
  authRealm: { type: 'string', description: 'Realm id of the admin who acted.' },
  authUser: { type: 'string', description: 'User id of the admin who acted.' },
  briefRepresentation: { type: 'boolean', description: 'Only the basic fields of each object (no attributes).' },
  client: { type: 'string', description: 'Client id (clientId) of the event.' },
  clientId: { type: 'string', description: 'Filter by clientId (exact, or infix with `search=true`).' },
  client_id: { type: 'string', description: 'Client (clientId) the link in the e-mail returns to.' },
  currentRealm: { type: 'string', description: 'Realm the admin console is looking at.' },
  dateFrom: { type: 'string', description: 'Earliest date, yyyy-MM-dd or epoch milliseconds.' },
  dateTo: { type: 'string', description: 'Latest date, yyyy-MM-dd or epoch milliseconds.' },
  direction: { type: 'string', description: '`asc` or `desc` (default) by time; for a mapper sync `fedToKeycloak` or `keycloakToFed`.' },
  email: { type: 'string', description: 'Filter by e-mail.' },
  emailVerified: { type: 'boolean', description: 'Filter by e-mail verification.' },
  enabled: { type: 'boolean', description: 'Filter by enabled state.' },
  exact: { type: 'boolean', description: 'Match the given values exactly instead of as infixes.' },
  exportClients: { type: 'boolean', description: 'Include the clients.' },
  exportGroupsAndRoles: { type: 'boolean', description: 'Include the groups and roles.' },
  first: { type: 'int32', description: 'Offset of the first result (paging).' },
  firstName: { type: 'string', description: 'Filter by first name.' },
  format: { type: 'string', description: 'Export format (SAML: `saml-idp-descriptor`).' },
  idpAlias: { type: 'string', description: 'Only users linked to this identity provider.' },
  idpUserId: { type: 'string', description: 'Only users with this user id at the identity provider.' },
  'include-global-policies': { type: 'boolean', description: 'Also list the global (built-in) policies.' },
  'include-global-profiles': { type: 'boolean', description: 'Also list the global (built-in) profiles.' },
  ipAddress: { type: 'string', description: 'Filter by IP address.' },
  isOffline: { type: 'boolean', description: 'The session is an offline session.' },
  lastName: { type: 'string', description: 'Filter by last name.' },
  lifespan: { type: 'int32', description: 'Lifetime of the link, in seconds.' },
  max: { type: 'int32', description: 'Maximum number of results (paging).' },
  membershipType: { type: 'string', description: 'MANAGED or UNMANAGED membership of an organization.' },
  name: { type: 'string', description: 'Filter by name.' },
  operationTypes: { type: 'string[]', description: 'Operation types (CREATE, UPDATE, DELETE, ACTION); repeatable.' },
  parent: { type: 'string', description: 'Id of the parent component.' },
  populateHierarchy: { type: 'boolean', description: 'Return the path to each matching group as a tree.' },
  providerId: { type: 'string', description: 'Filter by provider id.' },
  q: { type: 'string', description: 'Attribute query, `key1:value1 key2:value2`.' },
  realmOnly: { type: 'boolean', description: 'Only the providers of the realm (not of organizations).' },
  redirect_uri: { type: 'string', description: 'Where the link in the e-mail leads after the actions; must be valid for the client.' },
  resourcePath: { type: 'string', description: 'Resource path, `*` matches any segment.' },
  resourceTypes: { type: 'string[]', description: 'Resource types (USER, GROUP, ...); repeatable.' },
  scope: { type: 'string', description: 'Scope parameter, as a client would send it.' },
  status: { type: 'string', description: 'Invitation status: `PENDING` or `EXPIRED`.' },
  source: {
    type: 'boolean',
    description: 'With `true`: each text with its `source` (THEME or REALM), the built-in and the realm texts listed apart.',
  },
  search: { type: 'string', description: 'Search text matched as an infix (`"text"` for exact, `text*` for a prefix).' },
  subGroupsCount: { type: 'boolean', description: 'Fill `subGroupCount` of each group (default true).' },
  top: { type: 'boolean', description: 'Count only top-level groups.' },
  type: { type: 'string', description: 'Type of the event or component (repeatable for events).' },
  useRealmDefaultLocaleFallback: { type: 'boolean', description: "Fall back to the realm's default locale." },
  user: { type: 'string', description: 'User id of the event.' },
  userId: { type: 'string', description: 'Id of the user the example token is for.' },
  username: { type: 'string', description: 'Filter by username.' },
  _id: { type: 'string', description: 'Authorization resource id.' },
  deep: { type: 'boolean', description: 'Include the scopes and attributes of each resource (default true).' },
  exactName: { type: 'boolean', description: 'Match the name exactly instead of as an infix.' },
  fields: { type: 'string', description: '`*` adds `resourcesData` and `scopesData` to each policy.' },
  matchingUri: { type: 'boolean', description: 'When nothing has the uri, the resource whose uri pattern matches it.' },
  owner: { type: 'string', description: 'Owner of the resource: clientId, username or id.' },
  permission: { type: 'boolean', description: 'Only permissions (true) or only policies (false).' },
  policyId: { type: 'string', description: 'Policy id.' },
  resource: { type: 'string', description: 'Resource id or name the policy names.' },
  scopeId: { type: 'string', description: 'Authorization scope id.' },
  uri: { type: 'string', description: 'A uri of the resource.' },
  viewableOnly: { type: 'boolean', description: 'Only the clients the caller may view in full.' },
} as const satisfies Record<string, Q>;

export type QueryName = keyof typeof QUERY_PARAMS;

/** One entry per route served under /admin (rest/index.ts) and /realms (src/oidc/router.ts). */
export const OPERATIONS: Record<string, OperationSpec> = {
  'GET /admin/realms': { query: ['briefRepresentation'], res: 'RealmRepresentation[]' },
  'POST /admin/realms': { body: 'RealmRepresentation', res: 'created' },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings': {
    res: json('MappingsRepresentation: `realmMappings` (roles) and `clientMappings` (per client id: `id`, `client`, `mappings`)'),
  },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings/realm': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/users/:ownerId/role-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/users/:ownerId/role-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings/realm/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings/realm/composite': { query: ['briefRepresentation'], res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings/clients/:mapClient': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/users/:ownerId/role-mappings/clients/:mapClient': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/users/:ownerId/role-mappings/clients/:mapClient': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings/clients/:mapClient/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/users/:ownerId/role-mappings/clients/:mapClient/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings': {
    res: json('MappingsRepresentation: `realmMappings` (roles) and `clientMappings` (per client id: `id`, `client`, `mappings`)'),
  },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings/realm': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/groups/:ownerId/role-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/groups/:ownerId/role-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings/realm/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings/realm/composite': { query: ['briefRepresentation'], res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings/clients/:mapClient': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/groups/:ownerId/role-mappings/clients/:mapClient': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/groups/:ownerId/role-mappings/clients/:mapClient': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings/clients/:mapClient/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/groups/:ownerId/role-mappings/clients/:mapClient/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/users/:userId/groups': {
    query: ['search', 'first', 'max', 'briefRepresentation'],
    res: 'GroupRepresentation[]',
  },
  'GET /admin/realms/:realm/users/:userId/groups/count': { query: ['search'], res: 'count' },
  'PUT /admin/realms/:realm/users/:userId/groups/:groupId': { res: 'none' },
  'DELETE /admin/realms/:realm/users/:userId/groups/:groupId': { res: 'none' },
  'GET /admin/realms/:realm/users/:userId/consents': { res: 'UserConsentRepresentation[]' },
  'DELETE /admin/realms/:realm/users/:userId/consents/:clientId': { res: 'none' },
  'GET /admin/realms/:realm/users/:userId/federated-identity': { res: 'FederatedIdentityRepresentation[]' },
  'POST /admin/realms/:realm/users/:userId/federated-identity/:alias': { body: 'FederatedIdentityRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/users/:userId/federated-identity/:alias': { res: 'none' },
  'GET /admin/realms/:realm/users/:userId/credentials': { res: 'CredentialRepresentation[]' },
  'DELETE /admin/realms/:realm/users/:userId/credentials/:credentialId': { res: 'none' },
  'POST /admin/realms/:realm/users/:userId/credentials/:credentialId/moveToFirst': { res: 'none' },
  'POST /admin/realms/:realm/users/:userId/credentials/:credentialId/moveAfter/:previousId': { res: 'none' },
  'PUT /admin/realms/:realm/users/:userId/credentials/:credentialId/userLabel': { body: 'text', res: 'none' },
  'PUT /admin/realms/:realm/users/:userId/reset-password': { body: 'CredentialRepresentation', res: 'none' },
  'PUT /admin/realms/:realm/users/:userId/disable-credential-types': { body: 'string[]', res: 'none' },
  'GET /admin/realms/:realm/users/:userId/configured-user-storage-credential-types': { res: 'string[]' },
  'GET /admin/realms/:realm/users/profile/metadata': {
    res: json('UserProfileMetadata: `attributes` and `groups` as the admin console renders them'),
  },
  'GET /admin/realms/:realm/users/:userId/unmanagedAttributes': {
    res: json('Unmanaged attributes of the user: attribute name to its values'),
  },
  'POST /admin/realms/:realm/users/:userId/impersonation': {
    res: json('`redirect` (the account console URL) and `sameRealm`; sets the impersonation session cookie'),
  },
  'PUT /admin/realms/:realm/users/:userId/execute-actions-email': {
    body: 'string[]',
    query: ['client_id', 'redirect_uri', 'lifespan'],
    res: 'none',
  },
  'PUT /admin/realms/:realm/users/:userId/send-verify-email': { query: ['client_id', 'redirect_uri', 'lifespan'], res: 'none' },
  'PUT /admin/realms/:realm/users/:userId/reset-password-email': { query: ['client_id', 'redirect_uri'], res: 'none' },
  'GET /admin/realms/:realm/users/:userId/sessions': { res: json('UserSessionRepresentation[]') },
  'GET /admin/realms/:realm/users/:userId/offline-sessions/:clientUuid': { res: json('UserSessionRepresentation[]') },
  'POST /admin/realms/:realm/users/:userId/logout': { res: 'none' },
  'GET /admin/realms/:realm/users': {
    query: [
      'briefRepresentation',
      'email',
      'emailVerified',
      'enabled',
      'exact',
      'first',
      'firstName',
      'idpAlias',
      'idpUserId',
      'lastName',
      'max',
      'q',
      'search',
      'username',
    ],
    res: 'UserRepresentation[]',
  },
  'POST /admin/realms/:realm/users': { body: 'UserRepresentation', res: 'created' },
  'GET /admin/realms/:realm/users/count': {
    query: ['email', 'emailVerified', 'enabled', 'firstName', 'lastName', 'q', 'search', 'username'],
    res: 'integer',
  },
  'GET /admin/realms/:realm/users/profile': {
    res: json('UPConfig: the user profile configuration (`attributes`, `groups`, `unmanagedAttributePolicy`)'),
  },
  'PUT /admin/realms/:realm/users/profile': {
    body: json('UPConfig: the user profile configuration'),
    res: json('UPConfig: the user profile configuration (`attributes`, `groups`, `unmanagedAttributePolicy`)'),
  },
  'GET /admin/realms/:realm/users/:id': { res: 'UserRepresentation' },
  'PUT /admin/realms/:realm/users/:id': { body: 'UserRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/users/:id': { res: 'none' },
  'GET /admin/realms/:realm/groups': {
    query: ['search', 'q', 'exact', 'first', 'max', 'briefRepresentation', 'populateHierarchy', 'subGroupsCount'],
    res: 'GroupRepresentation[]',
  },
  'GET /admin/realms/:realm/groups/count': { query: ['search', 'top'], res: 'count' },
  'POST /admin/realms/:realm/groups': { body: 'GroupRepresentation', res: ['created', 'none'] },
  'GET /admin/realms/:realm/groups/:id': { res: 'GroupRepresentation' },
  'PUT /admin/realms/:realm/groups/:id': { body: 'GroupRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/groups/:id': { res: 'none' },
  'GET /admin/realms/:realm/groups/:id/children': {
    query: ['search', 'exact', 'first', 'max', 'briefRepresentation', 'subGroupsCount'],
    res: 'GroupRepresentation[]',
  },
  'POST /admin/realms/:realm/groups/:id/children': { body: 'GroupRepresentation', res: [{ created: 'GroupRepresentation' }, 'none'] },
  'GET /admin/realms/:realm/groups/:id/members': { query: ['first', 'max', 'briefRepresentation'], res: 'UserRepresentation[]' },
  'GET /admin/realms/:realm/groups/:id/management/permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/groups/:id/management/permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm/group-by-path/*path': { res: 'GroupRepresentation' },
  'GET /admin/realms/:realm/default-groups': { res: 'GroupRepresentation[]' },
  'PUT /admin/realms/:realm/default-groups/:groupId': { res: 'none' },
  'DELETE /admin/realms/:realm/default-groups/:groupId': { res: 'none' },
  'GET /admin/realms/:realm/roles': { query: ['search', 'first', 'max', 'briefRepresentation'], res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/roles': { body: 'RoleRepresentation', res: 'created' },
  'GET /admin/realms/:realm/roles/:roleName/management/permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/roles/:roleName/management/permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm/roles/:roleName': { res: 'RoleRepresentation' },
  'PUT /admin/realms/:realm/roles/:roleName': { body: 'RoleRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/roles/:roleName': { res: 'none' },
  'GET /admin/realms/:realm/roles/:roleName/composites': { query: ['search', 'first', 'max'], res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/roles/:roleName/composites': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/roles/:roleName/composites': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/roles/:roleName/composites/realm': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/roles/:roleName/composites/clients/:compositeClient': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/roles/:roleName/users': { query: ['first', 'max', 'briefRepresentation'], res: 'UserRepresentation[]' },
  'GET /admin/realms/:realm/roles/:roleName/groups': { query: ['first', 'max', 'briefRepresentation'], res: 'GroupRepresentation[]' },
  'GET /admin/realms/:realm/roles-by-id/:roleId/management/permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/roles-by-id/:roleId/management/permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm/roles-by-id/:roleId': { res: 'RoleRepresentation' },
  'PUT /admin/realms/:realm/roles-by-id/:roleId': { body: 'RoleRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/roles-by-id/:roleId': { res: 'none' },
  'GET /admin/realms/:realm/roles-by-id/:roleId/composites': { query: ['search', 'first', 'max'], res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/roles-by-id/:roleId/composites': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/roles-by-id/:roleId/composites': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/roles-by-id/:roleId/composites/realm': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/roles-by-id/:roleId/composites/clients/:compositeClient': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/clients/:ownerId/protocol-mappers/add-models': { body: 'ProtocolMapperRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/clients/:ownerId/protocol-mappers/models': { res: 'ProtocolMapperRepresentation[]' },
  'POST /admin/realms/:realm/clients/:ownerId/protocol-mappers/models': { body: 'ProtocolMapperRepresentation', res: 'created' },
  'GET /admin/realms/:realm/clients/:ownerId/protocol-mappers/models/:mapperId': { res: 'ProtocolMapperRepresentation' },
  'PUT /admin/realms/:realm/clients/:ownerId/protocol-mappers/models/:mapperId': { body: 'ProtocolMapperRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/clients/:ownerId/protocol-mappers/models/:mapperId': { res: 'none' },
  'GET /admin/realms/:realm/clients/:ownerId/protocol-mappers/protocol/:protocol': { res: 'ProtocolMapperRepresentation[]' },
  'POST /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/add-models': { body: 'ProtocolMapperRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/models': { res: 'ProtocolMapperRepresentation[]' },
  'POST /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/models': { body: 'ProtocolMapperRepresentation', res: 'created' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/models/:mapperId': { res: 'ProtocolMapperRepresentation' },
  'PUT /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/models/:mapperId': {
    body: 'ProtocolMapperRepresentation',
    res: 'none',
  },
  'DELETE /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/models/:mapperId': { res: 'none' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/protocol-mappers/protocol/:protocol': { res: 'ProtocolMapperRepresentation[]' },
  'POST /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/add-models': {
    body: 'ProtocolMapperRepresentation[]',
    res: 'none',
  },
  'GET /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/models': { res: 'ProtocolMapperRepresentation[]' },
  'POST /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/models': { body: 'ProtocolMapperRepresentation', res: 'created' },
  'GET /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/models/:mapperId': { res: 'ProtocolMapperRepresentation' },
  'PUT /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/models/:mapperId': {
    body: 'ProtocolMapperRepresentation',
    res: 'none',
  },
  'DELETE /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/models/:mapperId': { res: 'none' },
  'GET /admin/realms/:realm/client-templates/:ownerId/protocol-mappers/protocol/:protocol': { res: 'ProtocolMapperRepresentation[]' },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings': {
    res: json('MappingsRepresentation: `realmMappings` (roles) and `clientMappings` (per client id: `id`, `client`, `mappings`)'),
  },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings/realm': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/clients/:ownerId/scope-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/clients/:ownerId/scope-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings/realm/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings/realm/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings/clients/:roleClient': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/clients/:ownerId/scope-mappings/clients/:roleClient': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/clients/:ownerId/scope-mappings/clients/:roleClient': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings/clients/:roleClient/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/clients/:ownerId/scope-mappings/clients/:roleClient/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings': {
    res: json('MappingsRepresentation: `realmMappings` (roles) and `clientMappings` (per client id: `id`, `client`, `mappings`)'),
  },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/realm': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/realm/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/realm/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/clients/:roleClient': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/clients/:roleClient': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/clients/:roleClient': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/clients/:roleClient/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/client-scopes/:ownerId/scope-mappings/clients/:roleClient/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings': {
    res: json('MappingsRepresentation: `realmMappings` (roles) and `clientMappings` (per client id: `id`, `client`, `mappings`)'),
  },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings/realm': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/client-templates/:ownerId/scope-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/client-templates/:ownerId/scope-mappings/realm': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings/realm/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings/realm/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings/clients/:roleClient': { res: 'RoleRepresentation[]' },
  'POST /admin/realms/:realm/client-templates/:ownerId/scope-mappings/clients/:roleClient': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/client-templates/:ownerId/scope-mappings/clients/:roleClient': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings/clients/:roleClient/available': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/client-templates/:ownerId/scope-mappings/clients/:roleClient/composite': {
    query: ['briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/evaluate-scopes/protocol-mappers': {
    query: ['scope'],
    res: json('ProtocolMapperEvaluationRepresentation[]'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/evaluate-scopes/scope-mappings/:roleContainerId/granted': {
    query: ['scope'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/evaluate-scopes/scope-mappings/:roleContainerId/not-granted': {
    query: ['scope'],
    res: 'RoleRepresentation[]',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/evaluate-scopes/generate-example-access-token': {
    query: ['scope', 'userId', 'audience'],
    res: json('The claims of the example token (an AccessToken, IDToken or userinfo object)'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/evaluate-scopes/generate-example-id-token': {
    query: ['scope', 'userId', 'audience'],
    res: json('The claims of the example token (an AccessToken, IDToken or userinfo object)'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/evaluate-scopes/generate-example-userinfo': {
    query: ['scope', 'userId', 'audience'],
    res: json('The claims of the example token (an AccessToken, IDToken or userinfo object)'),
  },
  'GET /admin/realms/:realm/client-scopes': { res: 'ClientScopeRepresentation[]' },
  'POST /admin/realms/:realm/client-scopes': { body: 'ClientScopeRepresentation', res: 'created' },
  'GET /admin/realms/:realm/client-scopes/:id': { res: 'ClientScopeRepresentation' },
  'PUT /admin/realms/:realm/client-scopes/:id': { body: 'ClientScopeRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/client-scopes/:id': { res: 'none' },
  'GET /admin/realms/:realm/client-templates': { res: 'ClientScopeRepresentation[]' },
  'POST /admin/realms/:realm/client-templates': { body: 'ClientScopeRepresentation', res: 'created' },
  'GET /admin/realms/:realm/client-templates/:id': { res: 'ClientScopeRepresentation' },
  'PUT /admin/realms/:realm/client-templates/:id': { body: 'ClientScopeRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/client-templates/:id': { res: 'none' },
  'GET /admin/realms/:realm/default-default-client-scopes': { res: 'ClientScopeRepresentation[]' },
  'PUT /admin/realms/:realm/default-default-client-scopes/:scopeId': { res: 'none' },
  'DELETE /admin/realms/:realm/default-default-client-scopes/:scopeId': { res: 'none' },
  'GET /admin/realms/:realm/default-optional-client-scopes': { res: 'ClientScopeRepresentation[]' },
  'PUT /admin/realms/:realm/default-optional-client-scopes/:scopeId': { res: 'none' },
  'DELETE /admin/realms/:realm/default-optional-client-scopes/:scopeId': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/certificates/:attr': {
    res: json('CertificateRepresentation: `certificate`, `publicKey`, `kid` (PEM text without headers)'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/certificates/:attr/generate': {
    res: json('CertificateRepresentation: `certificate`, `publicKey`, `kid` (PEM text without headers)'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/certificates/:attr/download': { body: 'KeyStoreConfig', res: 'bytes' },
  'POST /admin/realms/:realm/clients/:clientUuid/certificates/:attr/generate-and-download': { body: 'KeyStoreConfig', res: 'bytes' },
  'POST /admin/realms/:realm/clients/:clientUuid/certificates/:attr/upload': {
    body: 'multipart',
    res: json('CertificateRepresentation: `certificate`, `publicKey`, `kid` (PEM text without headers)'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/certificates/:attr/upload-certificate': {
    body: 'multipart',
    res: json('CertificateRepresentation: `certificate`, `publicKey`, `kid` (PEM text without headers)'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/roles': {
    query: ['search', 'first', 'max', 'briefRepresentation'],
    res: 'RoleRepresentation[]',
  },
  'POST /admin/realms/:realm/clients/:clientUuid/roles': { body: 'RoleRepresentation', res: 'created' },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/management/permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/clients/:clientUuid/roles/:roleName/management/permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName': { res: 'RoleRepresentation' },
  'PUT /admin/realms/:realm/clients/:clientUuid/roles/:roleName': { body: 'RoleRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/clients/:clientUuid/roles/:roleName': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/composites': {
    query: ['search', 'first', 'max'],
    res: 'RoleRepresentation[]',
  },
  'POST /admin/realms/:realm/clients/:clientUuid/roles/:roleName/composites': { body: 'RoleRepresentation[]', res: 'none' },
  'DELETE /admin/realms/:realm/clients/:clientUuid/roles/:roleName/composites': { body: 'RoleRepresentation[]', res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/composites/realm': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/composites/clients/:compositeClient': { res: 'RoleRepresentation[]' },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/users': {
    query: ['first', 'max', 'briefRepresentation'],
    res: 'UserRepresentation[]',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/groups': {
    query: ['first', 'max', 'briefRepresentation'],
    res: 'GroupRepresentation[]',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/client-secret': {
    res: json('CredentialRepresentation of the client secret: `type` "secret" and `value`'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/client-secret': {
    res: json('CredentialRepresentation of the client secret: `type` "secret" and `value`'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/client-secret/rotated': {
    res: json('CredentialRepresentation of the rotated secret: `type` "secret" and `value`'),
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/client-secret/rotated': { res: 'none' },
  'POST /admin/realms/:realm/clients/:clientUuid/registration-access-token': { res: 'ClientRepresentation' },
  'GET /admin/realms/:realm/clients/:clientUuid/service-account-user': { res: 'UserRepresentation' },
  // Authorization services (rest/authz/): `{id}` under policy/permission is a policy id or, when it names a provider, a type.
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server': {
    res: json(
      'ResourceServerRepresentation: `id`, `clientId`, `name`, `allowRemoteResourceManagement`, `policyEnforcementMode`, `decisionStrategy`',
    ),
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server': {
    body: json(
      'ResourceServerRepresentation: `id`, `clientId`, `name`, `allowRemoteResourceManagement`, `policyEnforcementMode`, `decisionStrategy`',
    ),
    res: 'none',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/settings': {
    res: json('ResourceServerRepresentation export: settings, `resources`, `policies` (config with names), `scopes`'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/import': {
    body: json('ResourceServerRepresentation export'),
    res: 'none',
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource': {
    query: ['_id', 'name', 'uri', 'owner', 'type', 'scope', 'matchingUri', 'exactName', 'deep', 'first', 'max'],
    res: json('ResourceRepresentation list'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource': {
    body: json(
      'ResourceRepresentation: `_id`, `name`, `type`, `owner` {`id`, `name`}, `ownerManagedAccess`, `displayName`, `uris`, `scopes`, `attributes`, `icon_uri`',
    ),
    res: {
      created: json(
        'ResourceRepresentation: `_id`, `name`, `type`, `owner` {`id`, `name`}, `ownerManagedAccess`, `displayName`, `uris`, `scopes`, `attributes`, `icon_uri`',
      ),
    },
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/search': {
    query: ['name'],
    res: [
      json(
        'ResourceRepresentation: `_id`, `name`, `type`, `owner` {`id`, `name`}, `ownerManagedAccess`, `displayName`, `uris`, `scopes`, `attributes`, `icon_uri`',
      ),
      'none',
    ],
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/:id': {
    res: json(
      'ResourceRepresentation: `_id`, `name`, `type`, `owner` {`id`, `name`}, `ownerManagedAccess`, `displayName`, `uris`, `scopes`, `attributes`, `icon_uri`',
    ),
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/:id': {
    body: json(
      'ResourceRepresentation: `_id`, `name`, `type`, `owner` {`id`, `name`}, `ownerManagedAccess`, `displayName`, `uris`, `scopes`, `attributes`, `icon_uri`',
    ),
    res: 'none',
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/:id': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/:id/scopes': {
    res: json('`{id, name}` of each scope of the resource'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/:id/permissions': {
    res: json('`{id, name, type}` of each policy'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/resource/:id/attributes': {
    res: json('Attributes of the resource: name to list of values'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope': {
    query: ['scopeId', 'name', 'first', 'max'],
    res: json('ScopeRepresentation list'),
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope': {
    body: json('ScopeRepresentation: `id`, `name`, `displayName`, `iconUri`'),
    res: { created: json('ScopeRepresentation: `id`, `name`, `displayName`, `iconUri`') },
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope/search': {
    query: ['name'],
    res: json('ScopeRepresentation: `id`, `name`, `displayName`, `iconUri`'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope/:id': {
    res: json('ScopeRepresentation: `id`, `name`, `displayName`, `iconUri`'),
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope/:id': {
    body: json('ScopeRepresentation: `id`, `name`, `displayName`, `iconUri`'),
    res: 'none',
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope/:id': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope/:id/resources': {
    res: json('`{_id, name}` of each resource offering the scope'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/scope/:id/permissions': {
    res: json('`{id, name, type}` of each policy'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy': {
    query: ['policyId', 'name', 'type', 'resource', 'scope', 'permission', 'owner', 'fields', 'first', 'max'],
    res: [json('PolicyRepresentation list'), 'none'],
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: {
      created: json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
    },
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/evaluate': {
    body: json(
      'PolicyEvaluationRequest: `userId` (id or username), `clientId` (client UUID), `roleIds`, `resources` [{`_id` | `type`, `scopes`}], `context` {`attributes`}, `entitlements`',
    ),
    res: json(
      'PolicyEvaluationResponse: `results` [{`resource`, `scopes`, `policies`, `status`, `allowedScopes`}], `entitlements`, `status`, `rpt`',
    ),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/providers': {
    res: json('`{type, name, group}` of each policy provider'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/search': {
    query: ['name', 'fields'],
    res: [
      json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
      'none',
    ],
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id/dependentPolicies': {
    res: json('`{id, name, type}` of the policies applying this one'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id/dependentPolicies': {
    res: json('`{id, name, type}` of the policies applying this one'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id/associatedPolicies': {
    res: json('`{id, name, type, description}` of the policies it applies'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id/associatedPolicies': {
    res: json('`{id, name, type, description}` of the policies it applies'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id/resources': {
    res: json('`{_id, name}` of the resources it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id/resources': {
    res: json('`{_id, name}` of the resources it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id/scopes': {
    res: json('`{id, name}` of the scopes it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id/scopes': {
    res: json('`{id, name}` of the scopes it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id': {
    query: ['fields', 'name', 'first', 'max'],
    res: [
      json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
      json('PolicyRepresentation list'),
    ],
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: {
      created: json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
    },
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: 'created',
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:id': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id': {
    query: ['fields'],
    res: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: 'created',
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/authz/resource-server/policy/:type/:id': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission': {
    query: ['policyId', 'name', 'type', 'resource', 'scope', 'permission', 'owner', 'fields', 'first', 'max'],
    res: [json('PolicyRepresentation list'), 'none'],
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: {
      created: json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
    },
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/providers': {
    res: json('`{type, name, group}` of each policy provider'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/search': {
    query: ['name', 'fields'],
    res: [
      json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
      'none',
    ],
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id/dependentPolicies': {
    res: json('`{id, name, type}` of the policies applying this one'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id/dependentPolicies': {
    res: json('`{id, name, type}` of the policies applying this one'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id/associatedPolicies': {
    res: json('`{id, name, type, description}` of the policies it applies'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id/associatedPolicies': {
    res: json('`{id, name, type, description}` of the policies it applies'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id/resources': {
    res: json('`{_id, name}` of the resources it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id/resources': {
    res: json('`{_id, name}` of the resources it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id/scopes': {
    res: json('`{id, name}` of the scopes it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id/scopes': {
    res: json('`{id, name}` of the scopes it names'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id': {
    query: ['fields', 'name', 'first', 'max'],
    res: [
      json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
      json('PolicyRepresentation list'),
    ],
  },
  'POST /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: {
      created: json(
        'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
      ),
    },
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: 'created',
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:id': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id': {
    query: ['fields'],
    res: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
  },
  'PUT /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id': {
    body: json(
      'PolicyRepresentation: `id`, `name`, `description`, `type`, `logic`, `decisionStrategy`, and `config` (generic) or the provider fields (typed: `roles`, `users`, `groups`, `clients`, `clientScopes`, `resourceType`, ...)',
    ),
    res: 'created',
  },
  'DELETE /admin/realms/:realm/clients/:clientUuid/authz/resource-server/permission/:type/:id': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/default-client-scopes': { res: 'scopeRefs' },
  'PUT /admin/realms/:realm/clients/:clientUuid/default-client-scopes/:scopeId': { res: 'none' },
  'DELETE /admin/realms/:realm/clients/:clientUuid/default-client-scopes/:scopeId': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/optional-client-scopes': { res: 'scopeRefs' },
  'PUT /admin/realms/:realm/clients/:clientUuid/optional-client-scopes/:scopeId': { res: 'none' },
  'DELETE /admin/realms/:realm/clients/:clientUuid/optional-client-scopes/:scopeId': { res: 'none' },
  'POST /admin/realms/:realm/clients/:clientUuid/nodes': { body: json('`node`: the host name of the cluster node'), res: 'none' },
  'DELETE /admin/realms/:realm/clients/:clientUuid/nodes/:node': { res: 'none' },
  'GET /admin/realms/:realm/clients/:clientUuid/test-nodes-available': {
    res: json('GlobalRequestResult: `successRequests` and `failedRequests`, lists of URLs'),
  },
  'GET /admin/realms/:realm/clients/:clientUuid/management/permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/clients/:clientUuid/management/permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm/clients/:clientUuid/installation/providers/:providerId': {
    res: { file: 'The client adapter configuration in the format of the provider (JSON or XML)' },
  },
  'GET /admin/realms/:realm/clients/:clientUuid/session-count': { res: 'count' },
  'GET /admin/realms/:realm/clients/:clientUuid/offline-session-count': { res: 'count' },
  'GET /admin/realms/:realm/clients/:clientUuid/user-sessions': { query: ['first', 'max'], res: json('UserSessionRepresentation[]') },
  'GET /admin/realms/:realm/clients/:clientUuid/offline-sessions': { query: ['first', 'max'], res: json('UserSessionRepresentation[]') },
  'POST /admin/realms/:realm/clients/:clientUuid/push-revocation': {
    res: json('GlobalRequestResult: `successRequests` and `failedRequests`, lists of URLs'),
  },
  'GET /admin/realms/:realm/clients': { query: ['clientId', 'search', 'q', 'viewableOnly', 'first', 'max'], res: 'ClientRepresentation[]' },
  'POST /admin/realms/:realm/clients': { body: 'ClientRepresentation', res: 'created' },
  'GET /admin/realms/:realm/clients/:clientUuid': { res: 'ClientRepresentation' },
  'PUT /admin/realms/:realm/clients/:clientUuid': { body: 'ClientRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/clients/:clientUuid': { res: 'none' },
  'GET /admin/realms/:realm/clients-initial-access': { res: json('ClientInitialAccessPresentation[] (without the token)') },
  'POST /admin/realms/:realm/clients-initial-access': {
    body: 'ClientInitialAccessCreatePresentation',
    res: {
      created: json(
        'ClientInitialAccessPresentation: `id`, `token` (shown only here), `timestamp`, `expiration`, `count`, `remainingCount`',
      ),
    },
  },
  'DELETE /admin/realms/:realm/clients-initial-access/:id': { res: 'none' },
  'GET /admin/realms/:realm/client-registration-policy/providers': {
    res: json('ComponentTypeRepresentation[]: `id`, `helpText`, `properties`'),
  },
  'GET /admin/realms/:realm/attack-detection/brute-force/users/:userId': {
    res: json('Brute-force status of the user: `disabled`, `numFailures`, `lastFailure`, `lastIPFailure`, `failedLoginNotBefore`'),
  },
  'DELETE /admin/realms/:realm/attack-detection/brute-force/users/:userId': { res: 'none' },
  'DELETE /admin/realms/:realm/attack-detection/brute-force/users': { res: 'none' },
  'POST /admin/realms/:realm/client-description-converter': { body: 'clientDescription', res: 'ClientRepresentation' },
  'GET /admin/realms/:realm/identity-provider/providers/:providerId': { res: json('The identity provider factory: `id`, `name`') },
  'POST /admin/realms/:realm/identity-provider/import-config': {
    body: json('`providerId` and `fromUrl` (metadata to fetch), or the metadata itself'),
    res: json('The identity provider configuration read from the metadata: config key to value'),
  },
  'GET /admin/realms/:realm/identity-provider/instances': {
    query: ['search', 'briefRepresentation', 'first', 'max', 'realmOnly'],
    res: 'IdentityProviderRepresentation[]',
  },
  'POST /admin/realms/:realm/identity-provider/instances': { body: 'IdentityProviderRepresentation', res: 'created' },
  'GET /admin/realms/:realm/identity-provider/instances/:alias': { res: 'IdentityProviderRepresentation' },
  'PUT /admin/realms/:realm/identity-provider/instances/:alias': { body: 'IdentityProviderRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/identity-provider/instances/:alias': { res: 'none' },
  'GET /admin/realms/:realm/identity-provider/instances/:alias/export': {
    query: ['format'],
    res: { file: 'The provider exported in its own format (SAML: the SP metadata XML; others: the JSON representation)' },
  },
  'GET /admin/realms/:realm/identity-provider/instances/:alias/reload-keys': { res: 'boolean' },
  'GET /admin/realms/:realm/identity-provider/instances/:alias/management/permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/identity-provider/instances/:alias/management/permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm/identity-provider/instances/:alias/mapper-types': {
    res: json('Mapper types by id: IdentityProviderMapperTypeRepresentation'),
  },
  'GET /admin/realms/:realm/identity-provider/instances/:alias/mappers': { res: 'IdentityProviderMapperRepresentation[]' },
  'POST /admin/realms/:realm/identity-provider/instances/:alias/mappers': { body: 'IdentityProviderMapperRepresentation', res: 'created' },
  'GET /admin/realms/:realm/identity-provider/instances/:alias/mappers/:id': { res: 'IdentityProviderMapperRepresentation' },
  'PUT /admin/realms/:realm/identity-provider/instances/:alias/mappers/:id': { body: 'IdentityProviderMapperRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/identity-provider/instances/:alias/mappers/:id': { res: 'none' },
  'GET /admin/realms/:realm/organizations': {
    query: ['search', 'q', 'exact', 'first', 'max', 'briefRepresentation'],
    res: 'OrganizationRepresentation[]',
  },
  'POST /admin/realms/:realm/organizations': { body: 'OrganizationRepresentation', res: 'created' },
  'GET /admin/realms/:realm/organizations/count': { query: ['search', 'q', 'exact'], res: 'integer' },
  'GET /admin/realms/:realm/organizations/members/:userId/organizations': {
    query: ['briefRepresentation'],
    res: 'OrganizationRepresentation[]',
  },
  'GET /admin/realms/:realm/organizations/:id': { res: 'OrganizationRepresentation' },
  'PUT /admin/realms/:realm/organizations/:id': { body: 'OrganizationRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/organizations/:id': { res: 'none' },
  'POST /admin/realms/:realm/organizations/:id/members': { body: json('The id of the user, as a JSON string'), res: 'created' },
  'GET /admin/realms/:realm/organizations/:id/members': {
    query: ['search', 'exact', 'first', 'max', 'membershipType'],
    res: json('MemberRepresentation[]: users (UserRepresentation) with `membershipType` MANAGED or UNMANAGED'),
  },
  'GET /admin/realms/:realm/organizations/:id/members/count': { res: 'integer' },
  'POST /admin/realms/:realm/organizations/:id/members/invite-user': { body: 'form', res: 'none' },
  'POST /admin/realms/:realm/organizations/:id/members/invite-existing-user': { body: 'form', res: 'none' },
  'GET /admin/realms/:realm/organizations/:id/invitations': {
    query: ['first', 'max', 'status', 'email', 'search', 'firstName', 'lastName'],
    res: json(
      'OrganizationInvitationRepresentation[] by id: `id`, `organizationId`, `email`, `firstName`, `lastName`, `sentDate`, `expiresAt` (epoch seconds), `status` (PENDING or EXPIRED)',
    ),
  },
  'GET /admin/realms/:realm/organizations/:id/invitations/:invitationId': {
    res: json('OrganizationInvitationRepresentation; unknown → 404 `Invitation not found`'),
  },
  'DELETE /admin/realms/:realm/organizations/:id/invitations/:invitationId': { res: 'none' },
  'POST /admin/realms/:realm/organizations/:id/invitations/:invitationId/resend': { res: 'none' },
  'GET /admin/realms/:realm/organizations/:id/members/:userId': {
    res: json('MemberRepresentation: the user (UserRepresentation) with `membershipType`'),
  },
  'DELETE /admin/realms/:realm/organizations/:id/members/:userId': { res: 'none' },
  'GET /admin/realms/:realm/organizations/:id/members/:userId/organizations': {
    query: ['briefRepresentation'],
    res: 'OrganizationRepresentation[]',
  },
  'GET /admin/realms/:realm/organizations/:id/members/:userId/groups': {
    query: ['search', 'first', 'max', 'briefRepresentation'],
    res: json("GroupRepresentation[]: the member's groups of the organization (any depth); not a member → 404"),
  },
  'GET /admin/realms/:realm/organizations/:id/groups': {
    query: ['search', 'q', 'exact', 'first', 'max'],
    res: json(
      'GroupRepresentation[] (brief): top-level groups of the organization, or name (`search`, `exact`) or attribute (`q`) matches',
    ),
  },
  'POST /admin/realms/:realm/organizations/:id/groups': { body: 'GroupRepresentation', res: 'created' },
  'GET /admin/realms/:realm/organizations/:id/groups/group-by-path/*path': {
    res: json('Not implemented (as Keycloak 26.7): 501 `Not implemented yet`'),
  },
  'GET /admin/realms/:realm/organizations/:id/groups/:groupId': { res: 'GroupRepresentation' },
  'PUT /admin/realms/:realm/organizations/:id/groups/:groupId': { body: 'GroupRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/organizations/:id/groups/:groupId': { res: 'none' },
  'GET /admin/realms/:realm/organizations/:id/groups/:groupId/children': {
    query: ['search', 'exact', 'first', 'max'],
    res: 'GroupRepresentation[]',
  },
  'POST /admin/realms/:realm/organizations/:id/groups/:groupId/children': {
    body: 'GroupRepresentation',
    res: json('201 with the new subgroup (GroupRepresentation), or 204 when `id` named a group of the organization that moved here'),
  },
  'GET /admin/realms/:realm/organizations/:id/groups/:groupId/members': {
    query: ['first', 'max', 'briefRepresentation'],
    res: json('MemberRepresentation[]: members of the group (UserRepresentation) with `membershipType`'),
  },
  'PUT /admin/realms/:realm/organizations/:id/groups/:groupId/members/:userId': { res: 'none' },
  'DELETE /admin/realms/:realm/organizations/:id/groups/:groupId/members/:userId': { res: 'none' },
  'POST /admin/realms/:realm/organizations/:id/identity-providers': {
    body: json('The alias or internal id of the identity provider, as a JSON string'),
    res: 'none',
  },
  'GET /admin/realms/:realm/organizations/:id/identity-providers': { res: 'IdentityProviderRepresentation[]' },
  'GET /admin/realms/:realm/organizations/:id/identity-providers/:alias': { res: 'IdentityProviderRepresentation' },
  'DELETE /admin/realms/:realm/organizations/:id/identity-providers/:alias': { res: 'none' },
  'GET /admin/realms/:realm/components': { query: ['parent', 'type', 'name', 'providerId'], res: 'ComponentRepresentation[]' },
  'POST /admin/realms/:realm/components': { body: 'ComponentRepresentation', res: 'created' },
  'GET /admin/realms/:realm/components/:id': { res: 'ComponentRepresentation' },
  'PUT /admin/realms/:realm/components/:id': { body: 'ComponentRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/components/:id': { res: 'none' },
  'GET /admin/realms/:realm/components/:id/sub-component-types': {
    query: ['type'],
    res: json('ComponentTypeRepresentation[]: `id`, `helpText`, `properties`'),
  },
  'GET /admin/realms/:realm/keys': { res: json('KeysMetadataRepresentation: `active` (algorithm to kid) and `keys`') },
  'GET /admin/realms/:realm/events/config': { res: 'RealmEventsConfigRepresentation' },
  'PUT /admin/realms/:realm/events/config': { body: 'RealmEventsConfigRepresentation', res: 'none' },
  'GET /admin/realms/:realm/events': {
    query: ['client', 'dateFrom', 'dateTo', 'direction', 'first', 'ipAddress', 'max', 'type', 'user'],
    res: json('EventRepresentation[]'),
  },
  'DELETE /admin/realms/:realm/events': { res: 'none' },
  'GET /admin/realms/:realm/admin-events': {
    query: [
      'authClient',
      'authIpAddress',
      'authRealm',
      'authUser',
      'dateFrom',
      'dateTo',
      'direction',
      'first',
      'max',
      'operationTypes',
      'resourcePath',
      'resourceTypes',
    ],
    res: json('AdminEventRepresentation[]'),
  },
  'DELETE /admin/realms/:realm/admin-events': { res: 'none' },
  'POST /admin/realms/:realm/testLDAPConnection': {
    body: json(
      'TestLdapConnectionRepresentation: action (testConnection or testAuthentication), connectionUrl, bindDn, bindCredential, startTls, connectionTimeout, authType, componentId',
    ),
    res: 'none',
  },
  'POST /admin/realms/:realm/ldap-server-capabilities': {
    body: json('TestLdapConnectionRepresentation with action queryServerCapabilities'),
    res: json('LDAPCapabilityRepresentation[]: { oid, type: CONTROL | EXTENSION | FEATURE }'),
  },
  'GET /admin/realms/:realm/user-storage/:id/name': { res: json('{ id, name } of the user-storage provider') },
  'POST /admin/realms/:realm/user-storage/:id/sync': {
    query: ['action'],
    res: json('SynchronizationResultRepresentation: ignored, added, updated, removed, failed, status'),
  },
  'POST /admin/realms/:realm/user-storage/:id/remove-imported-users': { res: 'none' },
  'POST /admin/realms/:realm/user-storage/:id/unlink-users': { res: 'none' },
  'POST /admin/realms/:realm/user-storage/:parentId/mappers/:id/sync': {
    query: ['direction'],
    res: json('SynchronizationResultRepresentation: ignored, added, updated, removed, failed, status'),
  },
  'POST /admin/realms/:realm/testSMTPConnection': { body: 'SmtpServerRepresentation', res: 'none' },
  'GET /admin/realms/:realm/authentication/authenticator-providers': {
    res: json('Provider descriptions: `id`, `displayName`, `description`'),
  },
  'GET /admin/realms/:realm/authentication/client-authenticator-providers': {
    res: json('Provider descriptions: `id`, `displayName`, `description`'),
  },
  'GET /admin/realms/:realm/authentication/form-providers': { res: json('Provider descriptions: `id`, `displayName`, `description`') },
  'GET /admin/realms/:realm/authentication/form-action-providers': {
    res: json('Provider descriptions: `id`, `displayName`, `description`'),
  },
  'GET /admin/realms/:realm/authentication/config-description/:providerId': {
    res: json('A provider configuration description: `name`, `helpText`, `properties`'),
  },
  'GET /admin/realms/:realm/authentication/per-client-config-description': {
    res: json('A provider configuration description: `name`, `helpText`, `properties`'),
  },
  'GET /admin/realms/:realm/authentication/config/:id': { res: 'AuthenticatorConfigRepresentation' },
  'PUT /admin/realms/:realm/authentication/config/:id': { body: 'AuthenticatorConfigRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/authentication/config/:id': { res: 'none' },
  'POST /admin/realms/:realm/authentication/executions': { body: 'AuthenticationExecutionRepresentation', res: 'created' },
  'GET /admin/realms/:realm/authentication/executions/:id': { res: 'AuthenticationExecutionRepresentation' },
  'DELETE /admin/realms/:realm/authentication/executions/:id': { res: 'none' },
  'POST /admin/realms/:realm/authentication/executions/:id/config': { body: 'AuthenticatorConfigRepresentation', res: 'created' },
  'GET /admin/realms/:realm/authentication/executions/:id/config/:configId': { res: 'AuthenticatorConfigRepresentation' },
  'POST /admin/realms/:realm/authentication/executions/:id/raise-priority': { res: 'none' },
  'POST /admin/realms/:realm/authentication/executions/:id/lower-priority': { res: 'none' },
  'GET /admin/realms/:realm/authentication/flows': { res: 'AuthenticationFlowRepresentation[]' },
  'POST /admin/realms/:realm/authentication/flows': { body: 'AuthenticationFlowRepresentation', res: 'created' },
  'POST /admin/realms/:realm/authentication/flows/:alias/copy': { body: json('`newName`: the alias of the copy'), res: 'created' },
  'GET /admin/realms/:realm/authentication/flows/:alias/executions': { res: 'AuthenticationExecutionInfoRepresentation[]' },
  'PUT /admin/realms/:realm/authentication/flows/:alias/executions': { body: 'AuthenticationExecutionInfoRepresentation', res: 'none' },
  'POST /admin/realms/:realm/authentication/flows/:alias/executions/execution': {
    body: json('`provider`: the authenticator to add'),
    res: 'created',
  },
  'POST /admin/realms/:realm/authentication/flows/:alias/executions/flow': {
    body: json('`alias`, `type`, `provider`, `description` of the sub-flow'),
    res: 'created',
  },
  'GET /admin/realms/:realm/authentication/flows/:id': { res: 'AuthenticationFlowRepresentation' },
  'PUT /admin/realms/:realm/authentication/flows/:id': {
    body: 'AuthenticationFlowRepresentation',
    res: 'AuthenticationFlowRepresentation',
  },
  'DELETE /admin/realms/:realm/authentication/flows/:id': { res: 'none' },
  'GET /admin/realms/:realm/authentication/required-actions': { res: 'RequiredActionProviderRepresentation[]' },
  'GET /admin/realms/:realm/authentication/unregistered-required-actions': {
    res: json('Provider descriptions: `id`, `displayName`, `description`'),
  },
  'POST /admin/realms/:realm/authentication/register-required-action': {
    body: json('`providerId` and `name` of the required action'),
    res: 'none',
  },
  'GET /admin/realms/:realm/authentication/required-actions/:alias': { res: 'RequiredActionProviderRepresentation' },
  'PUT /admin/realms/:realm/authentication/required-actions/:alias': { body: 'RequiredActionProviderRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm/authentication/required-actions/:alias': { res: 'none' },
  'POST /admin/realms/:realm/authentication/required-actions/:alias/raise-priority': { res: 'none' },
  'POST /admin/realms/:realm/authentication/required-actions/:alias/lower-priority': { res: 'none' },
  'GET /admin/realms/:realm/authentication/required-actions/:alias/config-description': {
    res: json('A provider configuration description: `name`, `helpText`, `properties`'),
  },
  'GET /admin/realms/:realm/authentication/required-actions/:alias/config': {
    res: json('A provider configuration description: `name`, `helpText`, `properties`'),
  },
  'PUT /admin/realms/:realm/authentication/required-actions/:alias/config': {
    body: json('RequiredActionConfigRepresentation: `config`, key to value'),
    res: 'none',
  },
  'DELETE /admin/realms/:realm/authentication/required-actions/:alias/config': { res: 'none' },
  'GET /admin/realms/:realm/client-session-stats': { res: json('Per client with sessions: `id`, `clientId`, `active`, `offline`') },
  'POST /admin/realms/:realm/logout-all': { res: json('GlobalRequestResult: `successRequests` and `failedRequests`, lists of URLs') },
  'POST /admin/realms/:realm/push-revocation': { res: json('GlobalRequestResult: `successRequests` and `failedRequests`, lists of URLs') },
  'DELETE /admin/realms/:realm/sessions/:session': { query: ['isOffline'], res: 'none' },
  'GET /admin/realms/:realm/localization': { res: 'string[]' },
  'GET /admin/realms/:realm/localization/:locale': {
    query: ['useRealmDefaultLocaleFallback'],
    res: json('The localization texts of the locale: key to text'),
  },
  'POST /admin/realms/:realm/localization/:locale': { body: json('Localization texts: key to text'), res: 'none' },
  'DELETE /admin/realms/:realm/localization/:locale': { res: 'none' },
  'GET /admin/realms/:realm/localization/:locale/:key': { res: 'text' },
  'PUT /admin/realms/:realm/localization/:locale/:key': { body: 'text', res: 'none' },
  'DELETE /admin/realms/:realm/localization/:locale/:key': { res: 'none' },
  'GET /admin/realms/:realm/client-policies/profiles': { query: ['include-global-profiles'], res: 'ClientProfilesRepresentation' },
  'PUT /admin/realms/:realm/client-policies/profiles': { body: 'ClientProfilesRepresentation', res: 'none' },
  'GET /admin/realms/:realm/client-policies/policies': { query: ['include-global-policies'], res: 'ClientPoliciesRepresentation' },
  'PUT /admin/realms/:realm/client-policies/policies': { body: 'ClientPoliciesRepresentation', res: 'none' },
  'POST /admin/realms/:realm/partialImport': {
    body: 'RealmRepresentation',
    res: json('PartialImportResults: `overwritten`, `added`, `skipped`, `results`'),
  },
  'POST /admin/realms/:realm/partial-export': { query: ['exportClients', 'exportGroupsAndRoles'], res: 'RealmRepresentation' },
  'GET /admin/realms/:realm/credential-registrators': { res: 'string[]' },
  'GET /admin/realms/:realm/users-management-permissions': { res: MGMT_REF },
  'PUT /admin/realms/:realm/users-management-permissions': { body: MGMT_REF, res: MGMT_REF },
  'GET /admin/realms/:realm': { res: 'RealmRepresentation' },
  'PUT /admin/realms/:realm': { body: 'RealmRepresentation', res: 'none' },
  'DELETE /admin/realms/:realm': { res: 'none' },
  'GET /admin/serverinfo': { res: json('ServerInfoRepresentation: themes, providers, protocol mapper types, enums') },
  'GET /admin/:realm/console/whoami': {
    query: ['currentRealm'],
    res: json('WhoAmI: `userId`, `realm`, `displayName`, `locale`, `createRealm`, `realm_access`'),
  },
  'POST /realms/:realm/protocol/openid-connect/token': {
    body: 'form',
    res: json('AccessTokenResponse: `access_token`, `expires_in`, `refresh_token`, `refresh_expires_in`, `token_type`, `scope`, ...'),
  },
  'GET /realms/:realm/protocol/openid-connect/userinfo': {
    res: { file: "The user's userinfo claims: JSON, or a signed JWT (application/jwt) when the client asks for one" },
  },
  'POST /realms/:realm/protocol/openid-connect/userinfo': {
    body: 'form',
    res: { file: "The user's userinfo claims: JSON, or a signed JWT (application/jwt) when the client asks for one" },
  },
  'POST /realms/:realm/protocol/openid-connect/token/introspect': {
    body: 'form',
    res: json(
      'Token introspection (RFC 7662): `{"active": false}`, or the token\'s claims with `active`, `client_id`, `username`, `token_type`',
    ),
  },
  'POST /realms/:realm/protocol/openid-connect/revoke': {
    body: 'form',
    res: { file: 'Token revocation (RFC 7009): no body; a token that does not verify is answered 200 with an `invalid_token` body' },
  },
  'POST /realms/:realm/protocol/openid-connect/ext/par/request': {
    body: 'form',
    res: {
      created: json('Pushed authorization request (RFC 9126): `request_uri` (urn:ietf:params:oauth:request_uri:...) and `expires_in`'),
    },
  },
  'POST /realms/:realm/protocol/openid-connect/ext/ciba/auth': {
    body: 'form',
    res: json('CIBA backchannel authentication request (ADR 44): `auth_req_id`, `expires_in` and `interval`'),
  },
  'POST /realms/:realm/protocol/openid-connect/ext/ciba/auth/callback': {
    body: json('The authentication device\'s answer: `{"status": "SUCCEED" | "UNAUTHORIZED" | "CANCELLED"}`, with its bearer token'),
    res: { file: 'CIBA authentication channel callback: 200 without a body' },
  },
  'GET /realms/:realm/protocol/openid-connect/certs': { res: json("JSON Web Key Set of the realm's active signing keys") },
  'GET /realms/:realm/.well-known/openid-configuration': { res: json('OpenID Provider Metadata of the realm') },
  'POST /realms/:realm/clients-registrations/:provider': {
    body: json('`default`: a ClientRepresentation; `openid-connect`: OIDC client metadata (RFC 7591)'),
    res: { created: json('The registered client with its secret and registration access token (provider format)') },
  },
  'GET /realms/:realm/clients-registrations/:provider/:clientId': {
    res: json('The client in the provider format (ClientRepresentation or OIDC client metadata)'),
  },
  'PUT /realms/:realm/clients-registrations/:provider/:clientId': {
    body: json('`default`: a ClientRepresentation; `openid-connect`: OIDC client metadata (RFC 7592)'),
    res: json('The updated client with a new registration access token (provider format)'),
  },
  'DELETE /realms/:realm/clients-registrations/:provider/:clientId': { res: 'none' },
  'GET /resources/:realm/:themeType/:locale': {
    query: ['source'],
    res: json(
      "A theme's message bundle for the locale (`login`, `account`, `admin`, `email`, `common`, `welcome`), merged with the realm's localization texts: `[{key, value}]` (with `source`: `[{key, value, source}]`); public, no token; unknown realm or theme type → 404 without a body (Keycloak 26 ThemeResource#getLocalizationTexts)",
    ),
  },
};
