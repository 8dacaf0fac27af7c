import { Op } from 'sequelize';
import { MASTER, requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import { errorC, notFound, unauthorized } from '../../core/errors';
import type { RequestContext } from '../../core/context';
import type { Representation } from '../../representations/schema';
import { effectiveClientRoleNames, effectiveRealmRoleNames } from '../../core/effective-roles';

/**
 * Small realm-level admin helpers: the admin console's whoami (core reference §2.9), the
 * credential registrators (config reference §10.6) and the FGAP v1 users management permissions
 * (core reference §10: the feature is off, so 501).
 */

/** Required actions that register a credential, in the order Keycloak lists them. */
const REGISTRATORS = new Set(['CONFIGURE_TOTP', 'webauthn-register', 'webauthn-register-passwordless', 'CONFIGURE_RECOVERY_AUTHN_CODES']);

/** GET /{realm}/credential-registrators: provider ids of the enabled credential-registering required actions (view-realm). */
export async function credentialRegistrators(ctx: RequestContext, realm: RealmModel): Promise<string[]> {
  await requireCap(ctx, realm, 'viewRealm');
  const rows = await ctx.db.models.RequiredAction.findAll({
    where: { realmId: realm.id, enabled: true, providerId: { [Op.in]: [...REGISTRATORS] } },
    attributes: ['providerId', 'name', 'priority'],
  });
  rows.sort((a, b) => a.priority - b.priority || a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  return rows.map((r) => r.providerId);
}

export interface WhoAmI {
  userId: string;
  realm: string;
  displayName: string;
  locale: string;
  createRealm: boolean;
  realm_access: Record<string, string[]>;
  temporary: boolean;
}

/** Whether the token's client is the admin console (clientId `security-admin-console` or attribute `security.admin.console`). */
async function requireConsoleClient(ctx: RequestContext, clientUuid: string): Promise<void> {
  const client = await ctx.loaders.clientById.load(clientUuid);
  if (!client) throw errorC(403, 'No azp claim in the token');
  const attrs = (client.settings as Representation<'ClientRepresentation'> | undefined)?.attributes ?? {};
  if (client.clientId !== 'security-admin-console' && String(attrs['security.admin.console']) !== 'true') {
    throw errorC(403, `Token issued for an application that is not the admin console: ${client.clientId}`);
  }
}

/**
 * GET /admin/{realm}/console/whoami?currentRealm=: who the console's caller is and which admin
 * roles they hold on the realm being viewed (master callers: roles of `<currentRealm>-realm`, plus
 * `admin` when they hold master's admin role; others: `realm-management` roles of their own realm).
 * As Keycloak 26's AdminConsole#whoAmI, only tokens of the admin console (or a client with attribute
 * `security.admin.console`) are answered: an `admin-cli` token gets 403.
 */
export async function whoAmI(ctx: RequestContext, realmName: string, currentRealm?: string): Promise<WhoAmI> {
  const realm = await ctx.loaders.realmByName.load(realmName);
  if (!realm) throw notFound('Realm not found.');
  const actor = ctx.actor;
  if (!actor || actor.realmId !== realm.id) throw unauthorized();
  await requireConsoleClient(ctx, actor.clientId);
  const viewed = currentRealm ?? realm.name;
  if (!(await ctx.loaders.realmByName.load(viewed))) throw notFound('Realm not found');
  const user = await ctx.loaders.userById.load(actor.userId);
  if (!user) throw unauthorized();
  const master = realm.name === MASTER;
  const roles = master
    ? await effectiveClientRoleNames(ctx.db, user.id, realm.id, `${viewed}-realm`)
    : await effectiveClientRoleNames(ctx.db, user.id, realm.id, 'realm-management');
  if (!roles.size) throw errorC(403, 'No realm access');
  const masterRoles = master ? await effectiveRealmRoleNames(ctx.db, user.id, realm.id) : new Set<string>();
  // Keycloak 26 adds master's `admin` realm role to the viewed realm's entry of a master caller holding it.
  if (masterRoles.has('admin')) roles.add('admin');
  const attrs = await ctx.db.models.UserAttribute.findAll({
    where: { userId: user.id, name: { [Op.in]: ['locale', 'is_temporary_admin'] } },
    attributes: ['name', 'value'],
  });
  const attr = (n: string) => attrs.find((a) => a.name === n)?.value;
  const first = user.firstName?.trim() ? user.firstName : null;
  const last = user.lastName?.trim() ? user.lastName : null;
  const displayName = first || last ? [user.firstName, user.lastName].filter((x) => x != null).join(' ') : user.username;
  const defaultLocale =
    typeof realm.settings.defaultLocale === 'string' && realm.settings.defaultLocale ? realm.settings.defaultLocale : 'en';
  return {
    userId: user.id,
    realm: realm.name,
    displayName,
    locale: attr('locale') || defaultLocale,
    createRealm: masterRoles.has('create-realm'),
    realm_access: { [master ? viewed : realm.name]: [...roles].sort() },
    temporary: attr('is_temporary_admin') === 'true',
  };
}
