import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { errorA } from '../../core/errors';
import type { RealmModel } from '../../db/models/realm';
import type { OrganizationRep } from '../../representations/organization';
import { insertOrganization, organizationRepresentations } from './organizations';

/**
 * Organizations in a realm export and import (Keycloak 26's ExportUtils and
 * DefaultExportImportManager): each organization in full, with its linked identity providers as
 * `[{alias}]` and its unmanaged members as `[{username}]`; an import creates them after the realm's
 * identity providers and users, links the providers and adds the members it finds by username.
 */

/** The realm's organizations for an export (undefined when it has none, as Keycloak leaves the key out). */
export async function exportOrganizations(ctx: RequestContext, realm: RealmModel): Promise<OrganizationRep[] | undefined> {
  const m = ctx.db.models;
  const orgs = await m.Organization.findAll({ where: { realmId: realm.id }, order: [['name', 'ASC']] });
  if (!orgs.length) return undefined;
  const ids = orgs.map((o) => o.id);
  const [reps, idps, members] = await Promise.all([
    organizationRepresentations(ctx, orgs, false),
    m.IdentityProvider.findAll({
      where: { organizationId: { [Op.in]: ids } },
      attributes: ['alias', 'organizationId'],
      order: [['alias', 'ASC']],
    }),
    m.OrganizationMember.findAll({ where: { organizationId: { [Op.in]: ids }, membershipType: 'UNMANAGED' } }),
  ]);
  const users = members.length
    ? await m.User.findAll({ where: { id: { [Op.in]: [...new Set(members.map((x) => x.userId))] } }, attributes: ['id', 'username'] })
    : [];
  const username = new Map(users.map((u) => [u.id, u.username]));
  return reps.map((rep) => {
    const linked = idps.filter((p) => p.organizationId === rep.id).map((p) => ({ alias: p.alias }));
    const names = members
      .filter((x) => x.organizationId === rep.id)
      .map((x) => username.get(x.userId))
      .filter((n): n is string => !!n)
      .sort();
    return {
      ...rep,
      ...(names.length ? { members: names.map((n) => ({ username: n })) } : {}),
      ...(linked.length ? { identityProviders: linked } : {}),
    } as OrganizationRep;
  });
}

/**
 * Creates the organizations of an imported realm (inside the import's transaction): ids kept, the
 * named identity providers linked (an unknown one is a 400), members added by username (unknown
 * usernames skipped: in a directory import the users may come in later files).
 */
export async function importOrganizations(ctx: RequestContext, realm: RealmModel, reps: unknown): Promise<void> {
  if (!Array.isArray(reps)) return;
  const m = ctx.db.models;
  for (const raw of reps) {
    if (!raw || typeof raw !== 'object') continue;
    const rep = raw as OrganizationRep;
    const links = raw as { identityProviders?: Array<{ alias?: string }> };
    const id = await insertOrganization(ctx, realm, rep, false, true);
    for (const p of links.identityProviders ?? []) {
      if (!p?.alias) continue;
      const idp = await m.IdentityProvider.findOne({ where: { realmId: realm.id, alias: p.alias } });
      if (!idp) throw errorA(400, `Identity provider ${p.alias} of organization ${rep.name} not found`);
      idp.organizationId = id;
      await idp.save();
    }
  }
  await importOrganizationMembers(ctx, realm, reps);
}

/**
 * Adds the members an imported realm's organizations name by username, once their users exist
 * (`idserver import` reads users after the realm, so it calls this again after them). Unknown
 * usernames and existing memberships are skipped.
 */
export async function importOrganizationMembers(ctx: RequestContext, realm: RealmModel, reps: unknown): Promise<void> {
  if (!Array.isArray(reps)) return;
  const m = ctx.db.models;
  for (const raw of reps) {
    if (!raw || typeof raw !== 'object') continue;
    const rep = raw as OrganizationRep;
    const members = (raw as { members?: unknown }).members;
    const usernames = (Array.isArray(members) ? (members as Array<{ username?: string }>) : [])
      .map((x) => x?.username)
      .filter((n): n is string => typeof n === 'string' && n !== '')
      .map((n) => n.toLowerCase());
    if (!usernames.length) continue;
    const org = await m.Organization.findOne({ where: { realmId: realm.id, alias: rep.alias || rep.name } });
    if (!org) continue;
    const users = await m.User.findAll({ where: { realmId: realm.id, username: { [Op.in]: usernames } }, attributes: ['id'] });
    const already = new Set(
      (await m.OrganizationMember.findAll({ where: { organizationId: org.id }, attributes: ['userId'] })).map((x) => x.userId),
    );
    const added = users.filter((u) => !already.has(u.id));
    if (added.length) {
      await m.OrganizationMember.bulkCreate(added.map((u) => ({ organizationId: org.id, userId: u.id, membershipType: 'UNMANAGED' })));
    }
  }
}
