import type { GroupModel } from '../db/models/group';
import { TOP_LEVEL } from '../db/models/group';
import type { Representation } from './schema';

export type GroupRep = Representation<'GroupRepresentation'>;

export interface GroupRepExtras {
  path: string;
  subGroupCount?: number;
  subGroups?: GroupRep[];
  /** Present only in full representations. */
  realmRoles?: string[];
  clientRoles?: Record<string, string[]>;
  access?: Record<string, boolean>;
}

/**
 * Keycloak's GroupRepresentation. Brief omits attributes/realmRoles/clientRoles; full adds them.
 * Order: id, name, description?, path, parentId?, subGroupCount?, subGroups, attributes, realmRoles, clientRoles, access?
 */
export function toGroupRepresentation(g: GroupModel, x: GroupRepExtras, brief: boolean): GroupRep {
  const out: GroupRep = { id: g.id, name: g.name };
  if (g.description != null) out.description = g.description;
  out.path = x.path;
  if (g.parentId && g.parentId !== TOP_LEVEL) out.parentId = g.parentId;
  if (x.subGroupCount !== undefined) out.subGroupCount = x.subGroupCount;
  out.subGroups = x.subGroups ?? [];
  if (!brief) {
    out.attributes = g.attributes ?? {};
    out.realmRoles = x.realmRoles ?? [];
    out.clientRoles = x.clientRoles ?? {};
  }
  if (x.access) out.access = x.access;
  return out;
}
