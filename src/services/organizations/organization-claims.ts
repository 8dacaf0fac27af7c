import { Op } from 'sequelize';
import type { Db } from '../../db';

/**
 * What the `oidc-organization-membership-mapper` of the `organization` client scope reads (Keycloak
 * 26's OrganizationMembershipMapper): the enabled organizations each user is a member of, by alias,
 * with their attributes when asked. One statement per table for any number of users.
 */
export interface MemberOrganization {
  id: string;
  alias: string;
  attributes: Record<string, string[]>;
}

export async function organizationsOfUsers(
  db: Db,
  userIds: readonly string[],
  withAttributes: boolean,
): Promise<Map<string, MemberOrganization[]>> {
  const out = new Map<string, MemberOrganization[]>();
  if (!userIds.length) return out;
  const m = db.models;
  const rows = await m.OrganizationMember.findAll({ where: { userId: { [Op.in]: [...new Set(userIds)] } } });
  if (!rows.length) return out;
  const orgs = await m.Organization.findAll({
    where: { id: { [Op.in]: [...new Set(rows.map((r) => r.organizationId))] }, enabled: true },
    order: [['alias', 'ASC']],
  });
  const attrs =
    withAttributes && orgs.length
      ? await m.OrganizationAttribute.findAll({
          where: { organizationId: { [Op.in]: orgs.map((o) => o.id) } },
          order: [
            ['name', 'ASC'],
            ['value', 'ASC'],
          ],
        })
      : [];
  const byOrg = new Map<string, MemberOrganization>();
  for (const o of orgs) {
    const attributes: Record<string, string[]> = {};
    for (const a of attrs) {
      if (a.organizationId !== o.id) continue;
      attributes[a.name] ??= [];
      attributes[a.name].push(a.value ?? '');
    }
    byOrg.set(o.id, { id: o.id, alias: o.alias, attributes });
  }
  for (const o of orgs) {
    for (const r of rows) {
      if (r.organizationId !== o.id) continue;
      const list = out.get(r.userId) ?? [];
      list.push(byOrg.get(o.id) as MemberOrganization);
      out.set(r.userId, list);
    }
  }
  return out;
}

/**
 * The claim value (Keycloak's OrganizationMembershipMapper#resolveValue): none without organizations;
 * `jsonType.label` JSON: alias → { id?, attributes... }; else the aliases (the first one when not multivalued).
 */
export function organizationClaim(orgs: readonly MemberOrganization[], config: Record<string, string>): unknown {
  if (!orgs.length) return undefined;
  if (config['jsonType.label'] === 'JSON') {
    const value: Record<string, Record<string, unknown>> = {};
    for (const o of orgs) {
      const claims: Record<string, unknown> = {};
      if (config.addOrganizationAttributes === 'true') Object.assign(claims, o.attributes);
      if (config.addOrganizationId === 'true') claims.id = o.id;
      value[o.alias] = claims;
    }
    return value;
  }
  const aliases = orgs.map((o) => o.alias);
  return config.multivalued === 'false' ? aliases[0] : aliases;
}
