import { type Request, type Response, Router } from 'express';
import type { OrganizationModel } from '../../src/db/models/organization';
import {
  countOrganizations,
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  type OrganizationQuery,
  resolveOrganization,
  updateOrganization,
} from '../../src/services/organizations/organizations';
import {
  addOrganizationMember,
  countOrganizationMembers,
  getOrganizationMember,
  listOrganizationMembers,
  organizationsOfUser,
  removeOrganizationMember,
} from '../../src/services/organizations/organization-members';
import { inviteExistingUser, inviteUser, resendInvitation } from '../../src/services/organizations/organization-invites';
import { deleteInvitation, getInvitation, listInvitations } from '../../src/services/organizations/organization-invitations';
import {
  getOrganizationIdentityProvider,
  linkOrganizationIdentityProvider,
  listOrganizationIdentityProviders,
  unlinkOrganizationIdentityProvider,
} from '../../src/services/organizations/organization-idps';
import type { OrganizationRep } from '../../src/representations/organization';
import { created, ctxOf, json, jsonBody, noContent, once, qBool, qInt, qStr, realmOf, route, textBody } from '../http';
import { isMultipart, multipartFields } from '../multipart';

/**
 * `/admin/realms/{realm}/organizations` (Keycloak 26): organizations, their members, invitations and
 * linked identity providers. Every route needs manage-realm and the realm's `organizationsEnabled`.
 */
export const organizationsRouter = Router({ mergeParams: true });
const REP = 'OrganizationRepresentation';

/** The organization of `/{id}/...`, resolved once per request (403, then 404s, in Keycloak's order). */
const orgOf = (req: Request, res: Response): Promise<OrganizationModel> =>
  once(res, `organization:${String(req.params.id)}`, () => resolveOrganization(ctxOf(res), realmOf(res), String(req.params.id)));

const query = (req: Request): OrganizationQuery => ({
  search: qStr(req, 'search'),
  q: qStr(req, 'q'),
  exact: qBool(req, 'exact'),
  first: qInt(req, 'first'),
  max: qInt(req, 'max'),
  brief: qBool(req, 'briefRepresentation'),
});

/** The fields of a form body: URL-encoded (Keycloak's @Consumes) or multipart (the admin client sends FormData). */
async function formOf(req: Request): Promise<Record<string, string>> {
  if (isMultipart(req)) {
    const out: Record<string, string> = {};
    for (const [k, v] of await multipartFields(req)) out[k] = v.toString('utf8');
    return out;
  }
  return Object.fromEntries(new URLSearchParams(textBody(req)));
}

organizationsRouter.get(
  '/',
  route(async (req, res) => json(res, await listOrganizations(ctxOf(res), realmOf(res), query(req)))),
);
organizationsRouter.post(
  '/',
  route(async (req, res) => {
    const body = jsonBody<OrganizationRep | null>(req, REP, () => null);
    created(req, res, await createOrganization(ctxOf(res), realmOf(res), body));
  }),
);
organizationsRouter.get(
  '/count',
  route(async (req, res) => json(res, await countOrganizations(ctxOf(res), realmOf(res), query(req)))),
);
organizationsRouter.get(
  '/members/:userId/organizations',
  route(async (req, res) =>
    json(res, await organizationsOfUser(ctxOf(res), realmOf(res), String(req.params.userId), qBool(req, 'briefRepresentation') !== false)),
  ),
);

organizationsRouter.get(
  '/:id',
  route(async (req, res) => json(res, await getOrganization(ctxOf(res), await orgOf(req, res)))),
);
organizationsRouter.put(
  '/:id',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await updateOrganization(ctxOf(res), realmOf(res), org, jsonBody<OrganizationRep>(req, REP));
    noContent(res);
  }),
);
organizationsRouter.delete(
  '/:id',
  route(async (req, res) => {
    await deleteOrganization(ctxOf(res), realmOf(res), await orgOf(req, res));
    noContent(res);
  }),
);

organizationsRouter.post(
  '/:id/members',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    created(req, res, await addOrganizationMember(ctxOf(res), realmOf(res), org, textBody(req)));
  }),
);
organizationsRouter.get(
  '/:id/members',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    json(
      res,
      await listOrganizationMembers(ctxOf(res), realmOf(res), org, {
        search: qStr(req, 'search'),
        exact: qBool(req, 'exact'),
        first: qInt(req, 'first'),
        max: qInt(req, 'max'),
        membershipType: qStr(req, 'membershipType'),
      }),
    );
  }),
);
organizationsRouter.get(
  '/:id/members/count',
  route(async (req, res) => json(res, await countOrganizationMembers(ctxOf(res), await orgOf(req, res)))),
);
organizationsRouter.post(
  '/:id/members/invite-user',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await inviteUser(ctxOf(res), realmOf(res), org, await formOf(req));
    noContent(res);
  }),
);
organizationsRouter.post(
  '/:id/members/invite-existing-user',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await inviteExistingUser(ctxOf(res), realmOf(res), org, (await formOf(req)).id);
    noContent(res);
  }),
);
organizationsRouter.get(
  '/:id/members/:userId',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    json(res, await getOrganizationMember(ctxOf(res), realmOf(res), org, String(req.params.userId)));
  }),
);
organizationsRouter.delete(
  '/:id/members/:userId',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await removeOrganizationMember(ctxOf(res), realmOf(res), org, String(req.params.userId));
    noContent(res);
  }),
);
organizationsRouter.get(
  '/:id/members/:userId/organizations',
  route(async (req, res) => {
    await orgOf(req, res);
    json(res, await organizationsOfUser(ctxOf(res), realmOf(res), String(req.params.userId), qBool(req, 'briefRepresentation') !== false));
  }),
);

organizationsRouter.post(
  '/:id/identity-providers',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await linkOrganizationIdentityProvider(ctxOf(res), realmOf(res), org, textBody(req));
    noContent(res);
  }),
);
organizationsRouter.get(
  '/:id/identity-providers',
  route(async (req, res) => json(res, await listOrganizationIdentityProviders(ctxOf(res), await orgOf(req, res)))),
);
organizationsRouter.get(
  '/:id/identity-providers/:alias',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    json(res, await getOrganizationIdentityProvider(ctxOf(res), realmOf(res), org, String(req.params.alias)));
  }),
);
organizationsRouter.delete(
  '/:id/identity-providers/:alias',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await unlinkOrganizationIdentityProvider(ctxOf(res), realmOf(res), org, String(req.params.alias));
    noContent(res);
  }),
);

organizationsRouter.get(
  '/:id/invitations',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    const q = { first: qInt(req, 'first'), max: qInt(req, 'max'), status: qStr(req, 'status'), email: qStr(req, 'email') };
    const names = { search: qStr(req, 'search'), firstName: qStr(req, 'firstName'), lastName: qStr(req, 'lastName') };
    json(res, await listInvitations(ctxOf(res), org, { ...q, ...names }));
  }),
);
organizationsRouter.get(
  '/:id/invitations/:invitationId',
  route(async (req, res) => json(res, await getInvitation(ctxOf(res), await orgOf(req, res), String(req.params.invitationId)))),
);
organizationsRouter.delete(
  '/:id/invitations/:invitationId',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await deleteInvitation(ctxOf(res), realmOf(res), org, String(req.params.invitationId));
    noContent(res);
  }),
);
organizationsRouter.post(
  '/:id/invitations/:invitationId/resend',
  route(async (req, res) => {
    const org = await orgOf(req, res);
    await resendInvitation(ctxOf(res), realmOf(res), org, String(req.params.invitationId));
    noContent(res);
  }),
);
