import DataLoader from 'dataloader';
import type { Db } from '../db';
import { fastSelect } from '../db/fast-select';
import { fastIdLists, listLoader } from './util';

export interface UserParts {
  attributes: Record<string, string[]>;
  requiredActions: string[];
  credentialTypes: string[];
}

interface PartRow {
  userId: string;
  kind: 'a' | 'r' | 'c';
  name: string;
  value: string | null;
}

/** Attributes sorted by name, then row id (creation order); required actions and credential types by name. */
const PARTS_SQL = `SELECT user_id AS userId, 'a' AS kind, name, value, id AS sort FROM user_attribute WHERE user_id IN (:ids)
UNION ALL SELECT user_id, 'r', required_action, NULL, NULL FROM user_required_action WHERE user_id IN (:ids)
UNION ALL SELECT user_id, 'c', type, NULL, NULL FROM credential WHERE user_id IN (:ids)
ORDER BY kind, name, sort`;

/** User loaders: attributes, required actions, direct group ids, direct role ids. */
export function userLoaders(db: Db) {
  const m = db.models;
  /**
   * Attributes, required actions and credential types of users in one statement (the three are read
   * together for every full user representation): rows of the three tables as one UNION ALL.
   */
  const partsByUser = new DataLoader<string, UserParts>(async (ids) => {
    const list = [...new Set(ids)];
    const rows = await fastSelect<PartRow>(db.sequelize, PARTS_SQL, { ids: list });
    const parts = new Map(list.map((id) => [id, { attributes: {}, requiredActions: [], credentialTypes: [] } as UserParts]));
    for (const r of rows) {
      const p = parts.get(r.userId) as UserParts;
      if (r.kind === 'a') {
        p.attributes[r.name] ??= [];
        p.attributes[r.name].push(r.value as string);
      } else if (r.kind === 'r') p.requiredActions.push(r.name);
      else if (!p.credentialTypes.includes(r.name)) p.credentialTypes.push(r.name);
    }
    return ids.map((id) => parts.get(id) as UserParts);
  });
  const part = <K extends keyof UserParts>(key: K) =>
    new DataLoader<string, UserParts[K]>(async (ids) => (await partsByUser.loadMany(ids)).map((p) => (p instanceof Error ? p : p[key])));
  return {
    partsByUser,
    /** The parts of lists of users (one promise per list; partsByUser caches and is the one invalidated). */
    partsOfUsers: listLoader(partsByUser),
    /** name → values; values in insertion order (attribute row ids sort in creation order). */
    attributesByUser: part('attributes'),
    requiredActionsByUser: part('requiredActions'),
    credentialTypesByUser: part('credentialTypes'),
    groupIdsByUser: fastIdLists(db, m.UserGroupMembership, 'userId', 'groupId'),
    roleIdsByUser: fastIdLists(db, m.UserRoleMapping, 'userId', 'roleId'),
  };
}
