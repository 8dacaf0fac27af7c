/**
 * The REST admin route table and its GraphQL twins (issue 9, item 1): read by coverage.test.ts, which
 * walks every route the admin front serves and fails when one has no entry here, when an entry names
 * a schema coordinate that does not exist, or when an entry names a route that no longer exists.
 *
 * A route is `METHOD /admin/...` with express's path template, exactly as rest/index.ts and its
 * routers mount it (parameter names included). Each route is in exactly one of the lists below:
 *
 * - MAPPED: its twin, as the path a client takes through the schema: the first coordinate on
 *   Query/Mutation, each next one on the type the previous returns (`Query.user` then `User.groups`).
 *   `Type.field(arg:)` names the argument that selects this variant (`Client.sessions(offline:)`).
 *   The twin calls the same service function as the REST handler. `also` lists other paths to that
 *   function (a connection, a second mutation); `note` names it and says where the twin differs (a
 *   sibling function of the same service, fewer arguments, null where REST answers an error).
 * - ALIASES: another path to an operation that has its own entry (Keycloak's deprecated spellings).
 * - NOT_IMPLEMENTED: routes that answer 501 and are not an operation of their own issue.
 * - OWN_ISSUE: the management-permissions (FGAP v1) and authorization operations: issue 13.
 * - PENDING: routes whose twin does not exist yet, with the coordinate it is expected to get (null
 *   when nobody has named it yet). The test fails once that coordinate exists: move the entry to MAPPED.
 */

export type Coordinate = string;
/** Coordinates from a root field down to the field that answers the route. */
export type Path = readonly Coordinate[];
export type Twin = Path | { path: Path; also?: readonly Path[]; note: string };

export interface Alias {
  /** The route this one is another spelling of. */
  of: string;
  reason: string;
}

export interface OwnIssue {
  issue: number;
  reason: string;
  /** The status the route answers today, checked against a running server. */
  status?: number;
}

export interface Pending {
  /** The coordinate the twin is expected to get; null when not named yet. */
  expect: Coordinate | null;
  reason: string;
}

const R = '/admin/realms/:realm';
const realmField = (field: string): Path => ['Query.realm', `Realm.${field}`];

export const MAPPED: Record<string, Twin> = {
  // realms, server info
  'GET /admin/realms': ['Query.realms'],
  'POST /admin/realms': ['Mutation.createRealm'],
  [`GET ${R}`]: ['Query.realm'],
  [`PUT ${R}`]: ['Mutation.updateRealm'],
  [`DELETE ${R}`]: ['Mutation.deleteRealm'],
  'GET /admin/serverinfo': ['Query.serverInfo'],
  [`GET ${R}/keys`]: realmField('keys'),
  [`GET ${R}/credential-registrators`]: realmField('credentialRegistrators'),
  [`GET /admin/:realm/console/whoami`]: ['Query.whoAmI'],
  [`POST ${R}/partialImport`]: ['Mutation.partialImport'],
  [`POST ${R}/partial-export`]: ['Query.partialExport'],

  // localization
  [`GET ${R}/localization`]: realmField('localizationLocales'),
  [`GET ${R}/localization/:locale`]: realmField('localizationTexts'),
  [`GET ${R}/localization/:locale/:key`]: {
    path: realmField('localizationText'),
    note: 'getText; the text as a String where REST answers text/plain',
  },
  [`POST ${R}/localization/:locale`]: ['Mutation.saveLocalizationTexts'],
  [`DELETE ${R}/localization/:locale`]: ['Mutation.deleteLocalizationTexts'],
  [`PUT ${R}/localization/:locale/:key`]: ['Mutation.setLocalizationText'],
  [`DELETE ${R}/localization/:locale/:key`]: ['Mutation.deleteLocalizationText'],

  // events, e-mail
  [`GET ${R}/events`]: { path: realmField('events'), also: [realmField('eventsConnection')], note: 'listEvents' },
  [`DELETE ${R}/events`]: ['Mutation.clearEvents'],
  [`GET ${R}/events/config`]: realmField('eventsConfig'),
  [`PUT ${R}/events/config`]: ['Mutation.updateEventsConfig'],
  [`GET ${R}/admin-events`]: { path: realmField('adminEvents'), also: [realmField('adminEventsConnection')], note: 'listAdminEvents' },
  [`DELETE ${R}/admin-events`]: ['Mutation.clearAdminEvents'],
  [`POST ${R}/testSMTPConnection`]: ['Mutation.testSmtpConnection'],
  [`PUT ${R}/users/:userId/execute-actions-email`]: ['Mutation.executeActionsEmail'],
  [`PUT ${R}/users/:userId/send-verify-email`]: ['Mutation.sendVerifyEmail'],

  // users
  [`GET ${R}/users`]: { path: realmField('users'), also: [realmField('usersConnection')], note: 'listUsers' },
  [`POST ${R}/users`]: ['Mutation.createUser'],
  [`GET ${R}/users/count`]: {
    path: realmField('usersCount'),
    note: 'countUsers; firstName, lastName and emailVerified are REST filters usersCount does not take (usersConnection.totalCount does)',
  },
  [`GET ${R}/users/:id`]: ['Query.user'],
  [`PUT ${R}/users/:id`]: ['Mutation.updateUser'],
  [`DELETE ${R}/users/:id`]: ['Mutation.deleteUser'],
  [`GET ${R}/users/profile`]: realmField('userProfile'),
  [`PUT ${R}/users/profile`]: ['Mutation.updateUserProfile'],
  [`GET ${R}/users/:userId/credentials`]: ['Query.user', 'User.credentials'],
  [`DELETE ${R}/users/:userId/credentials/:credentialId`]: ['Mutation.deleteCredential'],
  [`POST ${R}/users/:userId/credentials/:credentialId/moveToFirst`]: ['Mutation.moveCredential'],
  [`POST ${R}/users/:userId/credentials/:credentialId/moveAfter/:previousId`]: ['Mutation.moveCredential(after:)'],
  [`PUT ${R}/users/:userId/credentials/:credentialId/userLabel`]: ['Mutation.setCredentialLabel'],
  [`PUT ${R}/users/:userId/reset-password`]: ['Mutation.resetPassword'],
  [`PUT ${R}/users/:userId/disable-credential-types`]: ['Mutation.disableCredentialTypes'],
  [`GET ${R}/users/:userId/consents`]: ['Query.user', 'User.consents'],
  [`DELETE ${R}/users/:userId/consents/:clientId`]: ['Mutation.revokeConsent'],
  [`GET ${R}/users/:userId/federated-identity`]: ['Query.user', 'User.federatedIdentities'],
  [`POST ${R}/users/:userId/federated-identity/:alias`]: ['Mutation.linkFederatedIdentity'],
  [`DELETE ${R}/users/:userId/federated-identity/:alias`]: ['Mutation.unlinkFederatedIdentity'],
  [`POST ${R}/users/:userId/impersonation`]: ['Mutation.impersonate'],
  [`GET ${R}/users/profile/metadata`]: realmField('userProfileMetadata'),
  [`GET ${R}/users/:userId/unmanagedAttributes`]: ['Query.user', 'User.unmanagedAttributes'],
  [`GET ${R}/users/:userId/configured-user-storage-credential-types`]: ['Query.user', 'User.configuredUserStorageCredentialTypes'],

  // groups and membership
  [`GET ${R}/groups`]: {
    path: realmField('groups'),
    also: [realmField('groupsConnection')],
    note: 'listGroups, always flat (populateHierarchy=false)',
  },
  [`POST ${R}/groups`]: {
    path: ['Mutation.createGroup'],
    also: [['Mutation.moveGroup']],
    note: 'createTopLevelGroup; with an existing id it moves the group to the top (moveGroup)',
  },
  [`GET ${R}/groups/count`]: realmField('groupsCount'),
  [`GET ${R}/groups/:id`]: ['Query.group'],
  [`PUT ${R}/groups/:id`]: ['Mutation.updateGroup'],
  [`DELETE ${R}/groups/:id`]: ['Mutation.deleteGroup'],
  [`GET ${R}/groups/:id/children`]: {
    path: ['Query.group', 'Group.subGroups'],
    also: [['Query.group', 'Group.subGroupsConnection']],
    note: 'listChildren',
  },
  [`POST ${R}/groups/:id/children`]: {
    path: ['Mutation.createChildGroup'],
    also: [['Mutation.moveGroup(parentId:)']],
    note: 'addSubGroup; with an existing id it moves that group under this one (moveGroup)',
  },
  [`GET ${R}/groups/:id/members`]: {
    path: ['Query.group', 'Group.members'],
    also: [['Query.group', 'Group.membersConnection']],
    note: 'listMembers',
  },
  [`GET ${R}/group-by-path/*path`]: realmField('groupByPath'),
  [`GET ${R}/default-groups`]: realmField('defaultGroups'),
  [`PUT ${R}/default-groups/:groupId`]: ['Mutation.setDefaultGroup'],
  [`DELETE ${R}/default-groups/:groupId`]: ['Mutation.removeDefaultGroup'],
  [`GET ${R}/users/:userId/groups`]: ['Query.user', 'User.groups'],
  [`PUT ${R}/users/:userId/groups/:groupId`]: ['Mutation.joinGroup'],
  [`DELETE ${R}/users/:userId/groups/:groupId`]: ['Mutation.leaveGroup'],
  [`GET ${R}/users/:userId/groups/count`]: ['Query.user', 'User.groupCount'],

  // role mappings of users and groups ({owner})
  [`GET ${R}/users/:ownerId/role-mappings`]: ['Query.user', 'User.roleMappings'],
  [`GET ${R}/users/:ownerId/role-mappings/realm`]: {
    path: ['Query.user', 'User.realmRoles'],
    note: 'the realmMappings of getRoleMappings (same view check and representations), not listMappedRoles',
  },
  [`POST ${R}/users/:ownerId/role-mappings/realm`]: ['Mutation.addRealmRoleMappings'],
  [`DELETE ${R}/users/:ownerId/role-mappings/realm`]: ['Mutation.removeRealmRoleMappings'],
  [`GET ${R}/users/:ownerId/role-mappings/clients/:mapClient`]: ['Query.user', 'User.clientRoles(clientUuid:)'],
  [`POST ${R}/users/:ownerId/role-mappings/clients/:mapClient`]: ['Mutation.addClientRoleMappings'],
  [`DELETE ${R}/users/:ownerId/role-mappings/clients/:mapClient`]: ['Mutation.removeClientRoleMappings'],
  [`GET ${R}/users/:ownerId/role-mappings/realm/available`]: ['Query.user', 'User.availableRealmRoles'],
  [`GET ${R}/users/:ownerId/role-mappings/realm/composite`]: ['Query.user', 'User.compositeRealmRoles'],
  [`GET ${R}/users/:ownerId/role-mappings/clients/:mapClient/available`]: ['Query.user', 'User.availableClientRoles'],
  [`GET ${R}/users/:ownerId/role-mappings/clients/:mapClient/composite`]: ['Query.user', 'User.compositeClientRoles'],
  [`GET ${R}/groups/:ownerId/role-mappings`]: ['Query.group', 'Group.roleMappings'],
  [`GET ${R}/groups/:ownerId/role-mappings/realm`]: {
    path: ['Query.group', 'Group.realmRoles'],
    note: 'the realmMappings of getRoleMappings (same view check and representations), not listMappedRoles',
  },
  [`POST ${R}/groups/:ownerId/role-mappings/realm`]: ['Mutation.addRealmRoleMappings'],
  [`DELETE ${R}/groups/:ownerId/role-mappings/realm`]: ['Mutation.removeRealmRoleMappings'],
  [`GET ${R}/groups/:ownerId/role-mappings/clients/:mapClient`]: ['Query.group', 'Group.clientRoles(clientUuid:)'],
  [`POST ${R}/groups/:ownerId/role-mappings/clients/:mapClient`]: ['Mutation.addClientRoleMappings'],
  [`DELETE ${R}/groups/:ownerId/role-mappings/clients/:mapClient`]: ['Mutation.removeClientRoleMappings'],
  [`GET ${R}/groups/:ownerId/role-mappings/realm/available`]: ['Query.group', 'Group.availableRealmRoles'],
  [`GET ${R}/groups/:ownerId/role-mappings/realm/composite`]: ['Query.group', 'Group.compositeRealmRoles'],
  [`GET ${R}/groups/:ownerId/role-mappings/clients/:mapClient/available`]: ['Query.group', 'Group.availableClientRoles'],
  [`GET ${R}/groups/:ownerId/role-mappings/clients/:mapClient/composite`]: ['Query.group', 'Group.compositeClientRoles'],

  // realm roles, client roles ({roleOwner}), roles by id
  [`GET ${R}/roles`]: { path: realmField('roles'), also: [realmField('rolesConnection')], note: 'listRoles' },
  [`POST ${R}/roles`]: ['Mutation.createRole'],
  [`GET ${R}/roles/:roleName`]: ['Query.role(name:)'],
  [`PUT ${R}/roles/:roleName`]: { path: ['Mutation.updateRole'], note: 'updateRole; GraphQL names the role by id' },
  [`DELETE ${R}/roles/:roleName`]: { path: ['Mutation.deleteRole'], note: 'deleteRole; GraphQL names the role by id' },
  [`GET ${R}/roles/:roleName/composites`]: ['Query.role(name:)', 'Role.composites'],
  [`GET ${R}/roles/:roleName/composites/realm`]: ['Query.role(name:)', 'Role.realmComposites'],
  [`GET ${R}/roles/:roleName/composites/clients/:compositeClient`]: ['Query.role(name:)', 'Role.clientComposites(clientUuid:)'],
  [`POST ${R}/roles/:roleName/composites`]: { path: ['Mutation.addComposites'], note: 'addComposites; GraphQL names the role by id' },
  [`DELETE ${R}/roles/:roleName/composites`]: {
    path: ['Mutation.removeComposites'],
    note: 'removeComposites; GraphQL names the role by id',
  },
  [`GET ${R}/roles/:roleName/users`]: {
    path: ['Query.role(name:)', 'Role.users'],
    also: [['Query.role(name:)', 'Role.usersConnection']],
    note: 'roleUsers',
  },
  [`GET ${R}/roles/:roleName/groups`]: ['Query.role(name:)', 'Role.groups'],
  [`GET ${R}/clients/:clientUuid/roles`]: ['Query.client', 'Client.roles'],
  [`POST ${R}/clients/:clientUuid/roles`]: ['Mutation.createRole(clientUuid:)'],
  [`GET ${R}/clients/:clientUuid/roles/:roleName`]: ['Query.role(clientUuid:)'],
  [`PUT ${R}/clients/:clientUuid/roles/:roleName`]: { path: ['Mutation.updateRole'], note: 'updateRole; GraphQL names the role by id' },
  [`DELETE ${R}/clients/:clientUuid/roles/:roleName`]: { path: ['Mutation.deleteRole'], note: 'deleteRole; GraphQL names the role by id' },
  [`GET ${R}/clients/:clientUuid/roles/:roleName/composites`]: ['Query.role(clientUuid:)', 'Role.composites'],
  [`GET ${R}/clients/:clientUuid/roles/:roleName/composites/realm`]: ['Query.role(clientUuid:)', 'Role.realmComposites'],
  [`GET ${R}/clients/:clientUuid/roles/:roleName/composites/clients/:compositeClient`]: [
    'Query.role(clientUuid:)',
    'Role.clientComposites(clientUuid:)',
  ],
  [`POST ${R}/clients/:clientUuid/roles/:roleName/composites`]: {
    path: ['Mutation.addComposites'],
    note: 'addComposites; GraphQL names the role by id',
  },
  [`DELETE ${R}/clients/:clientUuid/roles/:roleName/composites`]: {
    path: ['Mutation.removeComposites'],
    note: 'removeComposites; GraphQL names the role by id',
  },
  [`GET ${R}/clients/:clientUuid/roles/:roleName/users`]: ['Query.role(clientUuid:)', 'Role.users'],
  [`GET ${R}/clients/:clientUuid/roles/:roleName/groups`]: ['Query.role(clientUuid:)', 'Role.groups'],
  [`GET ${R}/roles-by-id/:roleId`]: ['Query.role(id:)'],
  [`PUT ${R}/roles-by-id/:roleId`]: ['Mutation.updateRole'],
  [`DELETE ${R}/roles-by-id/:roleId`]: ['Mutation.deleteRole'],
  [`GET ${R}/roles-by-id/:roleId/composites`]: ['Query.role(id:)', 'Role.composites'],
  [`GET ${R}/roles-by-id/:roleId/composites/realm`]: ['Query.role(id:)', 'Role.realmComposites'],
  [`GET ${R}/roles-by-id/:roleId/composites/clients/:compositeClient`]: ['Query.role(id:)', 'Role.clientComposites(clientUuid:)'],
  [`POST ${R}/roles-by-id/:roleId/composites`]: ['Mutation.addComposites'],
  [`DELETE ${R}/roles-by-id/:roleId/composites`]: ['Mutation.removeComposites'],

  // clients
  [`GET ${R}/clients`]: { path: realmField('clients'), also: [realmField('clientsConnection')], note: 'listClients' },
  [`POST ${R}/clients`]: ['Mutation.createClient'],
  [`GET ${R}/clients/:clientUuid`]: ['Query.client'],
  [`PUT ${R}/clients/:clientUuid`]: ['Mutation.updateClient'],
  [`DELETE ${R}/clients/:clientUuid`]: ['Mutation.deleteClient'],
  [`POST ${R}/clients/:clientUuid/client-secret`]: ['Mutation.regenerateClientSecret'],
  [`DELETE ${R}/clients/:clientUuid/client-secret/rotated`]: ['Mutation.invalidateRotatedClientSecret'],
  [`POST ${R}/clients/:clientUuid/registration-access-token`]: ['Mutation.regenerateRegistrationAccessToken'],
  [`GET ${R}/clients/:clientUuid/service-account-user`]: {
    path: ['Query.client', 'Client.serviceAccountUser'],
    note: 'getServiceAccountUser; null where REST answers 400 (service accounts disabled)',
  },
  [`GET ${R}/clients/:clientUuid/default-client-scopes`]: ['Query.client', 'Client.defaultClientScopes'],
  [`PUT ${R}/clients/:clientUuid/default-client-scopes/:scopeId`]: ['Mutation.addClientDefaultScope'],
  [`DELETE ${R}/clients/:clientUuid/default-client-scopes/:scopeId`]: ['Mutation.removeClientDefaultScope'],
  [`GET ${R}/clients/:clientUuid/optional-client-scopes`]: ['Query.client', 'Client.optionalClientScopes'],
  [`PUT ${R}/clients/:clientUuid/optional-client-scopes/:scopeId`]: ['Mutation.addClientOptionalScope'],
  [`DELETE ${R}/clients/:clientUuid/optional-client-scopes/:scopeId`]: ['Mutation.removeClientOptionalScope'],
  [`POST ${R}/clients/:clientUuid/nodes`]: ['Mutation.registerClientNode'],
  [`DELETE ${R}/clients/:clientUuid/nodes/:node`]: ['Mutation.unregisterClientNode'],
  [`GET ${R}/clients/:clientUuid/certificates/:attr`]: {
    path: ['Query.clientCertificate'],
    also: [['Query.client', 'Client.certificate']],
    note: 'getClientCertificate',
  },
  [`POST ${R}/clients/:clientUuid/certificates/:attr/generate`]: ['Mutation.generateClientCertificate'],
  [`POST ${R}/clients/:clientUuid/certificates/:attr/download`]: ['Query.clientKeystore'],
  [`POST ${R}/clients/:clientUuid/certificates/:attr/generate-and-download`]: ['Mutation.generateClientKeystore'],
  [`POST ${R}/clients/:clientUuid/certificates/:attr/upload`]: ['Mutation.uploadClientKey'],
  [`POST ${R}/clients/:clientUuid/certificates/:attr/upload-certificate`]: ['Mutation.uploadClientCertificate'],
  [`GET ${R}/clients/:clientUuid/client-secret`]: ['Query.clientSecret'],
  [`GET ${R}/clients/:clientUuid/client-secret/rotated`]: ['Query.clientRotatedSecret'],
  [`GET ${R}/clients/:clientUuid/installation/providers/:providerId`]: ['Query.clientInstallation'],
  [`POST ${R}/client-description-converter`]: ['Query.convertClientDescription'],
  [`GET ${R}/clients/:clientUuid/test-nodes-available`]: ['Mutation.testClientNodesAvailable'],
  [`GET ${R}/clients/:clientUuid/evaluate-scopes/protocol-mappers`]: [
    'Query.client',
    'Client.evaluateScopes',
    'ScopeEvaluation.protocolMappers',
  ],
  [`GET ${R}/clients/:clientUuid/evaluate-scopes/scope-mappings/:roleContainerId/granted`]: [
    'Query.client',
    'Client.evaluateScopes',
    'ScopeEvaluation.grantedScopeMappings',
  ],
  [`GET ${R}/clients/:clientUuid/evaluate-scopes/scope-mappings/:roleContainerId/not-granted`]: [
    'Query.client',
    'Client.evaluateScopes',
    'ScopeEvaluation.notGrantedScopeMappings',
  ],
  [`GET ${R}/clients/:clientUuid/evaluate-scopes/generate-example-access-token`]: [
    'Query.client',
    'Client.evaluateScopes',
    'ScopeEvaluation.exampleAccessToken',
  ],
  [`GET ${R}/clients/:clientUuid/evaluate-scopes/generate-example-id-token`]: [
    'Query.client',
    'Client.evaluateScopes',
    'ScopeEvaluation.exampleIdToken',
  ],
  [`GET ${R}/clients/:clientUuid/evaluate-scopes/generate-example-userinfo`]: [
    'Query.client',
    'Client.evaluateScopes',
    'ScopeEvaluation.exampleUserinfo',
  ],
  [`GET ${R}/clients-initial-access`]: realmField('clientInitialAccess'),
  [`POST ${R}/clients-initial-access`]: ['Mutation.createClientInitialAccess'],
  [`DELETE ${R}/clients-initial-access/:id`]: ['Mutation.deleteClientInitialAccess'],
  [`GET ${R}/client-registration-policy/providers`]: realmField('clientRegistrationPolicyProviders'),
  [`GET ${R}/client-policies/profiles`]: realmField('clientProfiles'),
  [`PUT ${R}/client-policies/profiles`]: ['Mutation.updateClientProfiles'],
  [`GET ${R}/client-policies/policies`]: realmField('clientPolicies'),
  [`PUT ${R}/client-policies/policies`]: ['Mutation.updateClientPolicies'],

  // sessions, brute force
  [`GET ${R}/client-session-stats`]: realmField('clientSessionStats'),
  [`POST ${R}/logout-all`]: ['Mutation.logoutAll'],
  [`POST ${R}/push-revocation`]: ['Mutation.pushRevocation'],
  [`DELETE ${R}/sessions/:session`]: ['Mutation.deleteSession'],
  [`GET ${R}/users/:userId/sessions`]: ['Query.user', 'User.sessions'],
  [`GET ${R}/users/:userId/offline-sessions/:clientUuid`]: ['Query.user', 'User.offlineSessions'],
  [`POST ${R}/users/:userId/logout`]: ['Mutation.logoutUser'],
  [`GET ${R}/clients/:clientUuid/session-count`]: ['Query.client', 'Client.sessionCount'],
  [`GET ${R}/clients/:clientUuid/offline-session-count`]: ['Query.client', 'Client.sessionCount(offline:)'],
  [`GET ${R}/clients/:clientUuid/user-sessions`]: ['Query.client', 'Client.sessions'],
  [`GET ${R}/clients/:clientUuid/offline-sessions`]: ['Query.client', 'Client.sessions(offline:)'],
  [`POST ${R}/clients/:clientUuid/push-revocation`]: ['Mutation.pushRevocation(clientUuid:)'],
  [`GET ${R}/attack-detection/brute-force/users/:userId`]: {
    path: ['Query.realm', 'Realm.bruteForceStatus'],
    also: [['Query.user', 'User.bruteForceStatus']],
    note: 'bruteForceStatus',
  },
  [`DELETE ${R}/attack-detection/brute-force/users/:userId`]: ['Mutation.clearBruteForce(userId:)'],
  [`DELETE ${R}/attack-detection/brute-force/users`]: ['Mutation.clearBruteForce'],

  // client scopes ({scopeOwner}: protocol mappers and scope mappings of clients and client scopes)
  [`GET ${R}/client-scopes`]: realmField('clientScopes'),
  [`POST ${R}/client-scopes`]: ['Mutation.createClientScope'],
  [`GET ${R}/client-scopes/:id`]: ['Query.clientScope'],
  [`PUT ${R}/client-scopes/:id`]: ['Mutation.updateClientScope'],
  [`DELETE ${R}/client-scopes/:id`]: ['Mutation.deleteClientScope'],
  [`GET ${R}/default-default-client-scopes`]: ['Query.realm', 'Realm.defaultClientScopes(list:)'],
  [`PUT ${R}/default-default-client-scopes/:scopeId`]: ['Mutation.addRealmDefaultClientScope(list:)'],
  [`DELETE ${R}/default-default-client-scopes/:scopeId`]: ['Mutation.removeRealmDefaultClientScope(list:)'],
  [`GET ${R}/default-optional-client-scopes`]: ['Query.realm', 'Realm.defaultClientScopes(list:)'],
  [`PUT ${R}/default-optional-client-scopes/:scopeId`]: ['Mutation.addRealmDefaultClientScope(list:)'],
  [`DELETE ${R}/default-optional-client-scopes/:scopeId`]: ['Mutation.removeRealmDefaultClientScope(list:)'],
  ...scopeOwnerRoutes('clients', 'Client'),
  ...scopeOwnerRoutes('client-scopes', 'ClientScope'),

  // organizations
  [`GET ${R}/organizations`]: realmField('organizations'),
  [`POST ${R}/organizations`]: ['Mutation.createOrganization'],
  [`GET ${R}/organizations/count`]: realmField('organizationsCount'),
  [`GET ${R}/organizations/members/:userId/organizations`]: ['Query.userOrganizations'],
  [`GET ${R}/organizations/:id`]: ['Query.organization'],
  [`PUT ${R}/organizations/:id`]: ['Mutation.updateOrganization'],
  [`DELETE ${R}/organizations/:id`]: ['Mutation.deleteOrganization'],
  [`POST ${R}/organizations/:id/members`]: ['Mutation.addOrganizationMember'],
  [`GET ${R}/organizations/:id/members`]: ['Query.organization', 'Organization.members'],
  [`GET ${R}/organizations/:id/members/count`]: ['Query.organization', 'Organization.membersCount'],
  [`POST ${R}/organizations/:id/members/invite-user`]: ['Mutation.inviteOrganizationMember'],
  [`POST ${R}/organizations/:id/members/invite-existing-user`]: ['Mutation.inviteExistingOrganizationMember'],
  [`GET ${R}/organizations/:id/invitations`]: ['Query.organization', 'Organization.invitations'],
  [`GET ${R}/organizations/:id/invitations/:invitationId`]: ['Query.organization', 'Organization.invitation'],
  [`DELETE ${R}/organizations/:id/invitations/:invitationId`]: ['Mutation.deleteOrganizationInvitation'],
  [`POST ${R}/organizations/:id/invitations/:invitationId/resend`]: ['Mutation.resendOrganizationInvitation'],
  [`GET ${R}/organizations/:id/members/:userId`]: {
    path: ['Query.organization', 'Organization.members'],
    note: 'listOrganizationMembers instead of getOrganizationMember: the member is an item of the list (no lookup by user id)',
  },
  [`DELETE ${R}/organizations/:id/members/:userId`]: ['Mutation.removeOrganizationMember'],
  [`GET ${R}/organizations/:id/members/:userId/organizations`]: ['Query.userOrganizations'],
  [`POST ${R}/organizations/:id/identity-providers`]: ['Mutation.linkOrganizationIdentityProvider'],
  [`GET ${R}/organizations/:id/identity-providers`]: ['Query.organization', 'Organization.identityProviders'],
  [`GET ${R}/organizations/:id/identity-providers/:alias`]: {
    path: ['Query.organization', 'Organization.identityProviders'],
    note: 'listOrganizationIdentityProviders instead of getOrganizationIdentityProvider: the provider is an item of the list',
  },
  [`DELETE ${R}/organizations/:id/identity-providers/:alias`]: ['Mutation.unlinkOrganizationIdentityProvider'],
  [`GET ${R}/organizations/:id/groups`]: ['Query.organization', 'Organization.groups'],
  [`POST ${R}/organizations/:id/groups`]: ['Mutation.createOrganizationGroup'],
  [`GET ${R}/organizations/:id/groups/:groupId`]: ['Query.organizationGroup'],
  [`PUT ${R}/organizations/:id/groups/:groupId`]: ['Mutation.updateOrganizationGroup'],
  [`DELETE ${R}/organizations/:id/groups/:groupId`]: ['Mutation.deleteOrganizationGroup'],
  [`GET ${R}/organizations/:id/groups/:groupId/children`]: ['Query.organizationGroup', 'OrganizationGroup.subGroups'],
  [`POST ${R}/organizations/:id/groups/:groupId/children`]: {
    path: ['Mutation.createOrganizationSubGroup'],
    also: [['Mutation.moveOrganizationGroup']],
    note: 'addOrganizationSubGroup: a new subgroup, or (moveOrganizationGroup) the body with `id` that moves a group',
  },
  [`GET ${R}/organizations/:id/groups/:groupId/members`]: ['Query.organizationGroup', 'OrganizationGroup.members'],
  [`PUT ${R}/organizations/:id/groups/:groupId/members/:userId`]: ['Mutation.joinOrganizationGroup'],
  [`DELETE ${R}/organizations/:id/groups/:groupId/members/:userId`]: ['Mutation.leaveOrganizationGroup'],
  [`GET ${R}/organizations/:id/members/:userId/groups`]: ['Query.organizationMemberGroups'],

  // identity providers
  [`GET ${R}/identity-provider/instances`]: realmField('identityProviders'),
  [`POST ${R}/identity-provider/instances`]: ['Mutation.createIdentityProvider'],
  [`GET ${R}/identity-provider/instances/:alias`]: ['Query.identityProvider'],
  [`PUT ${R}/identity-provider/instances/:alias`]: ['Mutation.updateIdentityProvider'],
  [`DELETE ${R}/identity-provider/instances/:alias`]: ['Mutation.deleteIdentityProvider'],
  [`POST ${R}/identity-provider/import-config`]: {
    path: ['Mutation.importIdentityProviderConfig'],
    also: [['Mutation.importIdentityProviderConfigFile']],
    note: 'importIdentityProviderConfig for the JSON body (fromUrl), importIdentityProviderConfigFile for the multipart upload',
  },
  [`GET ${R}/identity-provider/instances/:alias/mapper-types`]: ['Query.identityProvider', 'IdentityProvider.mapperTypes'],
  [`GET ${R}/identity-provider/instances/:alias/mappers`]: {
    path: ['Query.identityProvider', 'IdentityProvider.mappers'],
    note: 'requireIdpAccess(view) + mappersByProvider, the batched sibling of listIdpMappers',
  },
  [`POST ${R}/identity-provider/instances/:alias/mappers`]: ['Mutation.createIdentityProviderMapper'],
  [`PUT ${R}/identity-provider/instances/:alias/mappers/:id`]: ['Mutation.updateIdentityProviderMapper'],
  [`DELETE ${R}/identity-provider/instances/:alias/mappers/:id`]: ['Mutation.deleteIdentityProviderMapper'],
  [`GET ${R}/identity-provider/instances/:alias/mappers/:id`]: ['Query.identityProvider', 'IdentityProvider.mapper'],
  [`GET ${R}/identity-provider/instances/:alias/export`]: ['Query.identityProviderExport'],
  [`GET ${R}/identity-provider/instances/:alias/reload-keys`]: ['Mutation.reloadIdentityProviderKeys'],
  [`GET ${R}/identity-provider/providers/:providerId`]: ['Query.identityProviderFactory'],

  // components
  [`GET ${R}/components`]: realmField('components'),
  [`POST ${R}/components`]: ['Mutation.createComponent'],
  [`GET ${R}/components/:id`]: ['Query.component'],
  [`PUT ${R}/components/:id`]: ['Mutation.updateComponent'],
  [`DELETE ${R}/components/:id`]: ['Mutation.deleteComponent'],
  [`GET ${R}/components/:id/sub-component-types`]: ['Query.component', 'Component.subComponentTypes'],
  // user storage (LDAP federation)
  [`GET ${R}/user-storage/:id/name`]: ['Query.userStorageProviderName'],
  [`POST ${R}/user-storage/:id/sync`]: ['Mutation.syncUserStorage'],
  [`POST ${R}/user-storage/:id/remove-imported-users`]: ['Mutation.removeImportedUsers'],
  [`POST ${R}/user-storage/:id/unlink-users`]: ['Mutation.unlinkUsers'],
  [`POST ${R}/user-storage/:parentId/mappers/:id/sync`]: ['Mutation.syncUserStorageMapper'],
  [`POST ${R}/testLDAPConnection`]: ['Mutation.testLdapConnection'],
  [`POST ${R}/ldap-server-capabilities`]: ['Mutation.ldapServerCapabilities'],

  // authentication: flows, executions, configs, required actions
  [`GET ${R}/authentication/flows`]: realmField('authenticationFlows'),
  [`POST ${R}/authentication/flows`]: ['Mutation.createAuthenticationFlow'],
  [`GET ${R}/authentication/flows/:id`]: ['Query.authenticationFlow'],
  [`PUT ${R}/authentication/flows/:id`]: ['Mutation.updateAuthenticationFlow'],
  [`DELETE ${R}/authentication/flows/:id`]: ['Mutation.deleteAuthenticationFlow'],
  [`POST ${R}/authentication/flows/:alias/copy`]: ['Mutation.copyAuthenticationFlow'],
  [`GET ${R}/authentication/flows/:alias/executions`]: ['Query.authenticationExecutions'],
  [`PUT ${R}/authentication/flows/:alias/executions`]: ['Mutation.updateAuthenticationExecution'],
  [`POST ${R}/authentication/flows/:alias/executions/execution`]: ['Mutation.addAuthenticationExecution'],
  [`POST ${R}/authentication/flows/:alias/executions/flow`]: ['Mutation.addAuthenticationSubFlow'],
  [`DELETE ${R}/authentication/executions/:id`]: ['Mutation.deleteAuthenticationExecution'],
  [`POST ${R}/authentication/executions/:id/raise-priority`]: ['Mutation.moveAuthenticationExecution(direction:)'],
  [`POST ${R}/authentication/executions/:id/lower-priority`]: ['Mutation.moveAuthenticationExecution(direction:)'],
  [`POST ${R}/authentication/executions/:id/config`]: ['Mutation.createAuthenticatorConfig'],
  [`GET ${R}/authentication/config/:id`]: ['Query.authenticatorConfig'],
  [`PUT ${R}/authentication/config/:id`]: ['Mutation.updateAuthenticatorConfig'],
  [`DELETE ${R}/authentication/config/:id`]: ['Mutation.deleteAuthenticatorConfig'],
  [`GET ${R}/authentication/required-actions`]: realmField('requiredActions'),
  [`POST ${R}/authentication/register-required-action`]: ['Mutation.registerRequiredAction'],
  [`PUT ${R}/authentication/required-actions/:alias`]: ['Mutation.updateRequiredAction'],
  [`DELETE ${R}/authentication/required-actions/:alias`]: ['Mutation.deleteRequiredAction'],
  [`POST ${R}/authentication/required-actions/:alias/raise-priority`]: ['Mutation.moveRequiredAction(direction:)'],
  [`POST ${R}/authentication/required-actions/:alias/lower-priority`]: ['Mutation.moveRequiredAction(direction:)'],
  [`POST ${R}/authentication/executions`]: ['Mutation.createAuthenticationExecution'],
  [`GET ${R}/authentication/executions/:id`]: ['Query.authenticationExecution'],
  [`GET ${R}/authentication/required-actions/:alias`]: ['Query.requiredAction'],
  [`GET ${R}/authentication/required-actions/:alias/config`]: ['Query.requiredActionConfig'],
  [`PUT ${R}/authentication/required-actions/:alias/config`]: ['Mutation.updateRequiredActionConfig'],
  [`DELETE ${R}/authentication/required-actions/:alias/config`]: ['Mutation.deleteRequiredActionConfig'],
  [`GET ${R}/authentication/required-actions/:alias/config-description`]: ['Query.requiredActionConfigDescription'],
  [`GET ${R}/authentication/unregistered-required-actions`]: realmField('unregisteredRequiredActions'),
  [`GET ${R}/authentication/config-description/:providerId`]: ['Query.authenticatorConfigDescription'],
  [`GET ${R}/authentication/per-client-config-description`]: {
    path: realmField('perClientConfigDescription'),
    note: "getPerClientConfigDescription; REST's map by provider id as a list of { providerId, properties }",
  },
  [`GET ${R}/authentication/authenticator-providers`]: realmField('authenticatorProviders'),
  [`GET ${R}/authentication/client-authenticator-providers`]: realmField('clientAuthenticatorProviders'),
  [`GET ${R}/authentication/form-providers`]: realmField('formProviders'),
  [`GET ${R}/authentication/form-action-providers`]: realmField('formActionProviders'),
};

/**
 * Protocol mappers and scope mappings of one `{scopeOwner}` kind (`clients` or `client-scopes`, both
 * mounted from the same router factories): the GraphQL side takes the owner as `owner: ScopeOwner`.
 */
function scopeOwnerRoutes(kind: 'clients' | 'client-scopes', type: 'Client' | 'ClientScope'): Record<string, Twin> {
  const at = `${R}/${kind}/:ownerId`;
  const root = type === 'Client' ? 'Query.client' : 'Query.clientScope';
  return {
    [`GET ${at}/protocol-mappers/models`]: ['Query.protocolMappers(owner:)'],
    [`GET ${at}/protocol-mappers/models/:mapperId`]: ['Query.protocolMapper(owner:)'],
    [`GET ${at}/protocol-mappers/protocol/:protocol`]: ['Query.protocolMappers(protocol:)'],
    [`POST ${at}/protocol-mappers/models`]: ['Mutation.createProtocolMapper'],
    [`POST ${at}/protocol-mappers/add-models`]: ['Mutation.addProtocolMappers'],
    [`PUT ${at}/protocol-mappers/models/:mapperId`]: ['Mutation.updateProtocolMapper'],
    [`DELETE ${at}/protocol-mappers/models/:mapperId`]: ['Mutation.deleteProtocolMapper'],
    [`GET ${at}/scope-mappings`]: [root, `${type}.scopeMappings`],
    [`GET ${at}/scope-mappings/realm`]: {
      path: [root, `${type}.scopeMappings`, 'RoleMappings.realmMappings'],
      note: 'the realmMappings of getScopeMappings (same view check and representations), not listScopeMappedRoles',
    },
    [`POST ${at}/scope-mappings/realm`]: ['Mutation.addRealmScopeMappings'],
    [`GET ${at}/scope-mappings/clients/:roleClient`]: [root, `${type}.clientScopeMappings(clientUuid:)`],
    [`DELETE ${at}/scope-mappings/realm`]: ['Mutation.removeRealmScopeMappings'],
    [`POST ${at}/scope-mappings/clients/:roleClient`]: ['Mutation.addClientScopeMappings'],
    [`DELETE ${at}/scope-mappings/clients/:roleClient`]: ['Mutation.removeClientScopeMappings'],
    [`GET ${at}/scope-mappings/realm/available`]: [root, `${type}.availableRealmScopeMappings`],
    [`GET ${at}/scope-mappings/realm/composite`]: [root, `${type}.compositeRealmScopeMappings`],
    [`GET ${at}/scope-mappings/clients/:roleClient/available`]: [root, `${type}.availableClientScopeMappings`],
    [`GET ${at}/scope-mappings/clients/:roleClient/composite`]: [root, `${type}.compositeClientScopeMappings`],
  };
}

/** `/client-templates` is Keycloak's deprecated name of `/client-scopes`: every route there is an alias. */
const CLIENT_TEMPLATE_SUFFIXES = [
  'GET ',
  'POST ',
  'GET /:id',
  'PUT /:id',
  'DELETE /:id',
  'GET /:ownerId/protocol-mappers/models',
  'POST /:ownerId/protocol-mappers/models',
  'POST /:ownerId/protocol-mappers/add-models',
  'GET /:ownerId/protocol-mappers/models/:mapperId',
  'PUT /:ownerId/protocol-mappers/models/:mapperId',
  'DELETE /:ownerId/protocol-mappers/models/:mapperId',
  'GET /:ownerId/protocol-mappers/protocol/:protocol',
  'GET /:ownerId/scope-mappings',
  'GET /:ownerId/scope-mappings/realm',
  'POST /:ownerId/scope-mappings/realm',
  'DELETE /:ownerId/scope-mappings/realm',
  'GET /:ownerId/scope-mappings/realm/available',
  'GET /:ownerId/scope-mappings/realm/composite',
  'GET /:ownerId/scope-mappings/clients/:roleClient',
  'POST /:ownerId/scope-mappings/clients/:roleClient',
  'DELETE /:ownerId/scope-mappings/clients/:roleClient',
  'GET /:ownerId/scope-mappings/clients/:roleClient/available',
  'GET /:ownerId/scope-mappings/clients/:roleClient/composite',
];

export const ALIASES: Record<string, Alias> = {
  ...Object.fromEntries(
    CLIENT_TEMPLATE_SUFFIXES.map((s) => {
      const [method, rest] = s.split(' ');
      const alias: Alias = { of: `${method} ${R}/client-scopes${rest}`, reason: '/client-templates: deprecated name of /client-scopes' };
      return [`${method} ${R}/client-templates${rest}`, alias];
    }),
  ),
  [`GET ${R}/authentication/executions/:id/config/:configId`]: {
    of: `GET ${R}/authentication/config/:id`,
    reason: "getAuthenticatorConfig(configId): Keycloak's deprecated spelling, the execution id is not read",
  },
  [`PUT ${R}/users/:userId/reset-password-email`]: {
    of: `PUT ${R}/users/:userId/execute-actions-email`,
    reason: "Keycloak's deprecated resetPasswordEmail: execute-actions-email with UPDATE_PASSWORD, no lifespan",
  },
};

export const NOT_IMPLEMENTED: Record<string, string> = {
  [`GET ${R}/organizations/:id/groups/group-by-path/*path`]: "Keycloak 26.7's organization group-by-path: 'Not implemented yet'",
};

/** FGAP v1 management permissions (issue 13 items 3 and 6): one query and one mutation, by `kind`. */
const FGAP = (what: string, get: boolean): Twin => ({
  path: [get ? 'Query.managementPermissions(kind:)' : 'Mutation.setManagementPermissions(kind:)'],
  note: `${get ? 'read' : 'set'} the management permissions of ${what} (src/services/authz/management-permissions.ts)`,
});

/** The authorization services' admin routes (issue 13, item 1) and their GraphQL twins (item 6). */
const AUTHZ = `${R}/clients/:clientUuid/authz/resource-server`;
const rsField = (...fields: string[]): Path => ['Query.client', 'Client.authorization', ...fields.map((f) => `ResourceServer.${f}`)];
const rsNested = (field: string, nested: string): Path => [...rsField(field), nested];
const AUTHZ_TWINS: Record<string, Twin> = {
  [`GET ${AUTHZ}`]: {
    path: ['Query.client', 'Client.authorization'],
    note: 'getResourceServer; null where REST answers 404 (authorization off)',
  },
  [`PUT ${AUTHZ}`]: ['Mutation.updateResourceServer'],
  [`GET ${AUTHZ}/settings`]: rsField('settings'),
  [`POST ${AUTHZ}/import`]: ['Mutation.importResourceServer'],
  [`POST ${AUTHZ}/policy/evaluate`]: rsField('evaluate'),
  // resources
  [`GET ${AUTHZ}/resource`]: {
    path: rsField('resources'),
    note: 'listResources; without a filter, the same listing batched over many clients (resolvers/authz/loaders.ts)',
  },
  [`POST ${AUTHZ}/resource`]: ['Mutation.createAuthzResource'],
  [`GET ${AUTHZ}/resource/search`]: rsField('resourceByName'),
  [`GET ${AUTHZ}/resource/:id`]: rsField('resource'),
  [`PUT ${AUTHZ}/resource/:id`]: ['Mutation.updateAuthzResource'],
  [`DELETE ${AUTHZ}/resource/:id`]: ['Mutation.deleteAuthzResource'],
  [`GET ${AUTHZ}/resource/:id/scopes`]: {
    path: rsNested('resource', 'AuthzResource.scopes'),
    note: "resourceScopes; a listed resource of the server's own answers from its representation's scopes",
  },
  [`GET ${AUTHZ}/resource/:id/permissions`]: rsNested('resource', 'AuthzResource.permissions'),
  [`GET ${AUTHZ}/resource/:id/attributes`]: {
    path: rsNested('resource', 'AuthzResource.attributes'),
    note: 'the attributes of getResource, the same map resourceAttributes answers',
  },
  // scopes
  [`GET ${AUTHZ}/scope`]: rsField('scopes'),
  [`POST ${AUTHZ}/scope`]: ['Mutation.createAuthzScope'],
  [`GET ${AUTHZ}/scope/search`]: rsField('scopeByName'),
  [`GET ${AUTHZ}/scope/:id`]: rsField('scope'),
  [`PUT ${AUTHZ}/scope/:id`]: ['Mutation.updateAuthzScope'],
  [`DELETE ${AUTHZ}/scope/:id`]: ['Mutation.deleteAuthzScope'],
  [`GET ${AUTHZ}/scope/:id/resources`]: rsNested('scope', 'AuthzScope.resources'),
  [`GET ${AUTHZ}/scope/:id/permissions`]: rsNested('scope', 'AuthzScope.permissions'),
  // policies and permissions: `policy` is generic, `permission` and `{type}` typed (`typed:`)
  [`GET ${AUTHZ}/policy`]: rsField('policies'),
  [`GET ${AUTHZ}/permission`]: rsField('policies(permission:)'),
  [`POST ${AUTHZ}/policy`]: ['Mutation.createAuthzPolicy'],
  [`POST ${AUTHZ}/permission`]: ['Mutation.createAuthzPolicy'],
  [`POST ${AUTHZ}/policy/:id`]: {
    path: ['Mutation.createAuthzPolicy(type:)'],
    note: 'createPolicy of type `:id` (405 where `:id` is not a type)',
  },
  [`POST ${AUTHZ}/permission/:id`]: {
    path: ['Mutation.createAuthzPolicy(type:)'],
    note: 'createPolicy of type `:id` (405 where `:id` is not a type)',
  },
  [`GET ${AUTHZ}/policy/providers`]: rsField('policyProviders'),
  [`GET ${AUTHZ}/permission/providers`]: rsField('policyProviders'),
  [`GET ${AUTHZ}/policy/search`]: rsField('policyByName'),
  [`GET ${AUTHZ}/permission/search`]: rsField('policyByName(typed:)'),
  [`GET ${AUTHZ}/policy/:id`]: {
    path: rsField('policy'),
    also: [rsField('policies(typed:)')],
    note: 'getPolicy; GET policy/{type} (listPolicies of one type) is `policies(type:, typed: true)`',
  },
  [`GET ${AUTHZ}/permission/:id`]: {
    path: rsField('policy(typed:)'),
    also: [rsField('policies(typed:)')],
    note: 'getPolicy typed; GET permission/{type} is `policies(type:, typed: true)`',
  },
  [`GET ${AUTHZ}/policy/:type/:id`]: rsField('policy(typed:)'),
  [`GET ${AUTHZ}/permission/:type/:id`]: rsField('policy(typed:)'),
  [`PUT ${AUTHZ}/policy/:id`]: {
    path: ['Mutation.updateAuthzPolicy(generic:)'],
    note: 'updatePolicy, generic (405 where `:id` is a type)',
  },
  [`PUT ${AUTHZ}/permission/:id`]: { path: ['Mutation.updateAuthzPolicy'], note: 'updatePolicy, typed (405 where `:id` is a type)' },
  [`PUT ${AUTHZ}/policy/:type/:id`]: ['Mutation.updateAuthzPolicy'],
  [`PUT ${AUTHZ}/permission/:type/:id`]: ['Mutation.updateAuthzPolicy'],
  [`DELETE ${AUTHZ}/policy/:id`]: { path: ['Mutation.deleteAuthzPolicy'], note: 'deletePolicy (405 where `:id` is a type)' },
  [`DELETE ${AUTHZ}/permission/:id`]: { path: ['Mutation.deleteAuthzPolicy'], note: 'deletePolicy (405 where `:id` is a type)' },
  [`DELETE ${AUTHZ}/policy/:type/:id`]: ['Mutation.deleteAuthzPolicy'],
  [`DELETE ${AUTHZ}/permission/:type/:id`]: ['Mutation.deleteAuthzPolicy'],
  ...Object.fromEntries(
    ['policy', 'permission'].flatMap((kind) =>
      ['dependentPolicies', 'associatedPolicies', 'resources', 'scopes'].flatMap(
        (sub): Array<[string, Twin]> => [
          [`GET ${AUTHZ}/${kind}/:id/${sub}`, rsNested('policy', `AuthzPolicy.${sub}`)],
          [`GET ${AUTHZ}/${kind}/:type/:id/${sub}`, rsNested('policy', `AuthzPolicy.${sub}`)],
        ],
      ),
    ),
  ),
};
Object.assign(MAPPED, AUTHZ_TWINS);

const FGAP_TWINS: Record<string, Twin> = {
  [`GET ${R}/users-management-permissions`]: FGAP('users', true),
  [`PUT ${R}/users-management-permissions`]: FGAP('users', false),
  [`GET ${R}/groups/:id/management/permissions`]: FGAP('a group', true),
  [`PUT ${R}/groups/:id/management/permissions`]: FGAP('a group', false),
  [`GET ${R}/roles/:roleName/management/permissions`]: FGAP('a realm role, by the role id', true),
  [`PUT ${R}/roles/:roleName/management/permissions`]: FGAP('a realm role, by the role id', false),
  [`GET ${R}/roles-by-id/:roleId/management/permissions`]: FGAP('a role', true),
  [`PUT ${R}/roles-by-id/:roleId/management/permissions`]: FGAP('a role', false),
  [`GET ${R}/clients/:clientUuid/management/permissions`]: FGAP('a client', true),
  [`PUT ${R}/clients/:clientUuid/management/permissions`]: FGAP('a client', false),
  [`GET ${R}/clients/:clientUuid/roles/:roleName/management/permissions`]: FGAP('a client role, by the role id', true),
  [`PUT ${R}/clients/:clientUuid/roles/:roleName/management/permissions`]: FGAP('a client role, by the role id', false),
  [`GET ${R}/identity-provider/instances/:alias/management/permissions`]: FGAP('an identity provider', true),
  [`PUT ${R}/identity-provider/instances/:alias/management/permissions`]: FGAP('an identity provider', false),
};
Object.assign(MAPPED, FGAP_TWINS);

export const OWN_ISSUE: Record<string, OwnIssue> = {
  // None: the management-permissions routes have their twins (FGAP_TWINS).
};

/** Empty: every REST route has its twin. A new route without one goes here with `{ expect, reason }`. */
export const PENDING: Record<string, Pending> = {};
