import { Op } from 'sequelize';
import type { Db } from '../../db';

/**
 * What the `oidc-organization-membership-mapper` of the `organization` client scope reads (Keycloak
 * 26's OrganizationMembershipMapper): the organizations each user is a member of, by alias, with
 * their attributes when asked. One statement per table for any number of users.
 */
export interface MemberOrganization {
  id: string;
  alias: string;
  enabled: boolean;
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
    where: { id: { [Op.in]: [...new Set(rows.map((r) => r.organizationId))] } },
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
    byOrg.set(o.id, { id: o.id, alias: o.alias, enabled: o.enabled, attributes });
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

/** Keycloak's OrganizationScope of a scope parameter: `organization:*` ALL, `organization:<alias>` SINGLE, plain `organization` ANY. */
export type OrganizationScope = { kind: 'ALL' } | { kind: 'SINGLE'; alias: string } | { kind: 'ANY' };

/** The `organization` form a scope parameter asks for, if any (`*` first, then an alias, then the plain scope). */
export function organizationScopeOf(scope: string): OrganizationScope | undefined {
  const asked = scope.split(/\s+/).filter((s) => s === 'organization' || s.startsWith('organization:'));
  if (asked.includes('organization:*')) return { kind: 'ALL' };
  const single = asked.find((s) => s.startsWith('organization:'));
  if (single) return { kind: 'SINGLE', alias: single.slice('organization:'.length) };
  return asked.length ? { kind: 'ANY' } : undefined;
}

/**
 * The user-session note that keeps the organization the user picked for a client's login (Keycloak
 * keeps `kc.org` in the client session; idserver's client sessions have no notes, so the user
 * session keeps one per client).
 */
export const selectedOrganizationNote = (clientId: string) => `kc.org:${clientId}`;

/**
 * The organizations a token maps, by the `organization` forms of its scope parameter (Keycloak's
 * OrganizationScope): `organization:*` all of the user's, `organization:<alias>` that one if the user
 * is a member, plain `organization` (or the scope granted by default) the user's organization when
 * there is exactly one, else the one picked on the login's select-organization page (`selected`);
 * disabled organizations never.
 */
export function scopedOrganizations(orgs: readonly MemberOrganization[], scope: string, selected?: string): MemberOrganization[] {
  // The mapper runs only when the scope is granted: granted as a default scope, it is the plain form.
  const form = organizationScopeOf(scope) ?? { kind: 'ANY' };
  const enabled = orgs.filter((o) => o.enabled);
  if (form.kind === 'ALL') return enabled;
  if (form.kind === 'SINGLE') return enabled.filter((o) => o.alias === form.alias);
  if (enabled.length === 1) return enabled;
  return selected ? enabled.filter((o) => o.id === selected) : [];
}

/** True when a scope parameter asks for the `organization` client scope in one of its forms. */
export const asksOrganizationScope = (wanted: ReadonlySet<string>): boolean =>
  wanted.has('organization') || [...wanted].some((w) => w.startsWith('organization:'));
