import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA } from '../../core/errors';
import { batchLoad } from '../../loaders/batch';
import type { IdentityProviderModel } from '../../db/models/identity-provider';
import type { OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';
import { type IdentityProviderRep, toIdentityProviderRepresentation } from '../../representations/identity-provider';
import { identityProvidersNamed } from '../identity-providers/identity-providers';
import { bodyId } from './organization-members';
import { unlinkIdentityProviderRow } from './organizations';

/**
 * Identity providers linked to an organization (Keycloak 26's OrganizationIdentityProvidersResource):
 * a provider names its organization in `organizationId`; a provider serves at most one organization.
 * Keycloak records no admin event for these.
 */

/**
 * POST /{realm}/organizations/{id}/identity-providers (body: alias or internal id, JSON string or
 * bare): 204; unknown → 400, linked here already → 409, linked elsewhere → 400.
 */
export async function linkOrganizationIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  raw: string,
): Promise<void> {
  const key = bodyId(raw);
  await write(ctx, {}, async () => {
    const [idp] = key ? await identityProvidersNamed(ctx, realm, [key]) : [null];
    if (!idp) throw errorA(400, 'Identity provider not found with the given alias');
    if (idp.organizationId === org.id) throw errorA(409, 'Identity provider already associated to the organization');
    if (idp.organizationId) throw errorA(400, 'Identity provider already associated with a different organization');
    idp.organizationId = org.id;
    await idp.save();
  });
}

/** GET /{realm}/organizations/{id}/identity-providers: the linked providers by alias, secrets masked. */
export function listOrganizationIdentityProviders(ctx: RequestContext, org: OrganizationModel): Promise<IdentityProviderRep[]> {
  return batchLoad(
    ctx.memo,
    'org-identity-providers',
    async (ids: readonly string[]) => {
      const rows = await ctx.db.models.IdentityProvider.findAll({
        where: { organizationId: [...new Set(ids)] },
        order: [['alias', 'ASC']],
      });
      return ids.map((id) => rows.filter((r) => r.organizationId === id).map(toIdentityProviderRepresentation));
    },
    org.id,
  );
}

async function linkedProvider(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  alias: string,
  missing: string,
): Promise<IdentityProviderModel> {
  const idp = await ctx.db.models.IdentityProvider.findOne({ where: { realmId: realm.id, alias } });
  if (!idp || idp.organizationId !== org.id) throw errorA(404, missing);
  return idp;
}

/** GET /{realm}/organizations/{id}/identity-providers/{alias}: 404 unless linked to this organization. */
export async function getOrganizationIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  alias: string,
): Promise<IdentityProviderRep> {
  return toIdentityProviderRepresentation(
    await linkedProvider(ctx, realm, org, alias, 'Identity provider not associated with the organization'),
  );
}

/** DELETE /{realm}/organizations/{id}/identity-providers/{alias}: unlinks (the provider stays), dropping `kc.org.domain`. */
export async function unlinkOrganizationIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  alias: string,
): Promise<void> {
  await write(ctx, {}, async () => {
    const idp = await linkedProvider(ctx, realm, org, alias, 'Identity provider not found with the given alias');
    await unlinkIdentityProviderRow(idp);
  });
}
