import type { Loaders } from '.';

/**
 * What a write must forget, one function per entity: after a service changes a row it calls the
 * function of that entity, which clears every per-request loader keyed on it (and the derived ones
 * it feeds, such as effective roles). Loaders live for one request, so this keeps a request that
 * writes and then reads (GraphQL mutations, REST handlers that answer with the new state) exact.
 */
export const invalidate = {
  /** Everything the request cached: a transaction that lost a lock race runs again from scratch. */
  everything(l: Loaders): void {
    for (const loader of Object.values(l)) if (typeof loader?.clearAll === 'function') loader.clearAll();
  },

  /** A realm was created, renamed, updated or deleted. */
  realm(l: Loaders, realm: { id: string; name?: string }, ...names: Array<string | undefined>): void {
    l.realmById.clear(realm.id);
    for (const name of [realm.name, ...names]) if (name) l.realmByName.clear(name);
  },

  /** A user row or its attributes, required actions or credentials changed, or it was deleted. */
  user(l: Loaders, userId: string): void {
    l.partsByUser.clear(userId);
    l.userById.clear(userId);
    l.attributesByUser.clear(userId);
    l.requiredActionsByUser.clear(userId);
    l.credentialTypesByUser.clear(userId);
    l.groupIdsByUser.clear(userId);
    l.roleIdsByUser.clear(userId);
    l.effectiveRoleIdsByUser.clear(userId);
  },

  /** A user joined or left groups: its groups, the groups' members and everyone's effective roles. */
  membership(l: Loaders, userId: string, ...groupIds: string[]): void {
    l.groupIdsByUser.clear(userId);
    l.effectiveRoleIdsByUser.clear(userId);
    for (const id of groupIds) l.memberIdsByGroup.clear(id);
    l.memberIdsPageByGroup.clearAll();
  },

  /** A group was created, renamed, moved or deleted (its parent's children change too). */
  group(l: Loaders, groupId: string, ...parentIds: Array<string | null | undefined>): void {
    l.groupById.clear(groupId);
    l.childrenByGroup.clear(groupId);
    l.subGroupCountByGroup.clear(groupId);
    for (const p of parentIds) {
      if (!p) continue;
      l.childrenByGroup.clear(p);
      l.subGroupCountByGroup.clear(p);
    }
  },

  /** Groups were moved or deleted in bulk: every group relation is forgotten. */
  groups(l: Loaders): void {
    l.groupById.clearAll();
    l.childrenByGroup.clearAll();
    l.subGroupCountByGroup.clearAll();
    l.groupIdsByUser.clearAll();
    l.memberIdsByGroup.clearAll();
    l.memberIdsPageByGroup.clearAll();
    l.roleIdsByGroup.clearAll();
    l.effectiveRoleIdsByGroup.clearAll();
    l.effectiveRoleIdsByUser.clearAll();
  },

  /** A role was created, renamed, updated or deleted in a container (realm id or client id). */
  role(l: Loaders, roleId: string, containerId?: string): void {
    l.roleById.clear(roleId);
    l.childIdsByRole.clear(roleId);
    if (containerId) l.rolesByContainer.clear(containerId);
  },

  /**
   * Role mappings or composites changed: direct mappings of the owners given, and every effective
   * role set (a composite or a group mapping reaches users that are not named).
   */
  roleMappings(l: Loaders, owners: { userIds?: string[]; groupIds?: string[]; compositeIds?: string[] } = {}): void {
    for (const id of owners.userIds ?? []) l.roleIdsByUser.clear(id);
    for (const id of owners.groupIds ?? []) l.roleIdsByGroup.clear(id);
    for (const id of owners.compositeIds ?? []) {
      l.childIdsByRole.clear(id);
      // roleById holds whether the role has composites.
      l.roleById.clear(id);
    }
    l.effectiveRoleIdsByUser.clearAll();
    l.effectiveRoleIdsByGroup.clearAll();
  },

  /** A client row changed or was deleted (its scope links, mappers and service account with it). */
  client(l: Loaders, clientId: string): void {
    l.clientById.clear(clientId);
    l.scopeLinksByClient.clear(clientId);
    l.mappersByClient.clear(clientId);
    l.serviceAccountByClient.clear(clientId);
    l.scopeRoleIdsByOwner.clear(clientId);
    l.rolesByContainer.clear(clientId);
  },

  /** A client scope changed or was deleted (its mappers and scope mappings with it, and every client's links to it). */
  clientScope(l: Loaders, scopeId: string): void {
    l.clientScopeById.clear(scopeId);
    l.scopeLinksByClient.clearAll();
    l.mappersByScope.clear(scopeId);
    l.scopeRoleIdsByOwner.clear(scopeId);
  },

  /** Protocol mappers of a client or client scope changed. */
  mappers(l: Loaders, ownerId: string): void {
    l.mappersByClient.clear(ownerId);
    l.mappersByScope.clear(ownerId);
  },

  /** Scope mappings of a client or client scope changed. */
  scopeMappings(l: Loaders, ownerId: string): void {
    l.scopeRoleIdsByOwner.clear(ownerId);
  },

  /** The scope links of a client changed. */
  scopeLinks(l: Loaders, clientId: string): void {
    l.scopeLinksByClient.clear(clientId);
  },
};
