import { Attribute, Change } from 'ldapts';
import type { RequestContext } from '../../core/context';
import { errorA } from '../../core/errors';
import type { UserModel } from '../../db/models/user';
import { withAdmin } from './ldap-connection';
import { isAttributeMapper, LDAP_ENTRY_DN, LDAP_ID, ldapChangesOf, sameValues } from './ldap-mapping';
import { readOnlyMessage, transientFactsOf } from './transient-users';

/**
 * Admin writes of transient users (import off, ADR 46), as Keycloak's proxies of such a user
 * answer them (LDAPStorageProvider#proxy: ReadOnlyUserModelDelegate under UpdateOnlyChangeUserModelDelegate,
 * with LDAPWritesOnlyUserModelDelegate in WRITABLE mode): only what changes is written; a change
 * the directory holds (a writable attribute mapper's field) goes to LDAP in WRITABLE mode; any other
 * change (enabled, emailVerified, required actions, credentials, unmapped attributes, and every
 * change in UNSYNCED mode, which has no local copy to keep it) is refused with 400 before anything
 * is written. A delete removes the entry in WRITABLE mode and only the user's sessions otherwise
 * (Keycloak's removeUser leaves READ_ONLY and UNSYNCED entries alone).
 */
const flag = (v: unknown) => v === true || v === 'true';

interface Update {
  enabled?: unknown;
  emailVerified?: unknown;
  requiredActions?: unknown;
  credentials?: unknown;
}

type Fields = { username: string; email: string | null; firstName: string | null; lastName: string | null };

/** The checks of PUT /users/{id} for a transient user and the write of its changed LDAP attributes (before federatedUserUpdate writes its names and email). */
export async function transientUserUpdate(
  ctx: RequestContext,
  user: UserModel,
  rep: Update,
  next: Fields,
  attributes: Record<string, string[]> | undefined,
): Promise<void> {
  const f = transientFactsOf(user);
  if (!f) return;
  const { provider: p, entry } = f;
  const refuse = (what: string) => {
    throw errorA(400, readOnlyMessage(user, what));
  };
  const writable = p.cfg.editMode === 'WRITABLE';
  // READ_ONLY: federatedUserUpdate answers Keycloak's user-profile error for these.
  for (const k of ['username', 'email', 'firstName', 'lastName'] as const)
    if (p.cfg.editMode === 'UNSYNCED' && (next[k] ?? null) !== (user[k] ?? null)) refuse(k);
  if (rep.enabled != null && flag(rep.enabled) !== user.enabled) refuse('enabled');
  if (rep.emailVerified != null && flag(rep.emailVerified) !== user.emailVerified) refuse('emailVerified');
  if (Array.isArray(rep.requiredActions) && rep.requiredActions.length) refuse(`required action ${rep.requiredActions[0]}`);
  if (Array.isArray(rep.credentials) && rep.credentials.length) refuse('credentials');
  const changed = Object.fromEntries(
    Object.entries(attributes ?? {}).filter(([k, v]) => k !== LDAP_ID && k !== LDAP_ENTRY_DN && !sameValues(v, entry.attributes[k])),
  );
  if (!Object.keys(changed).length) return;
  const ldap = writable ? ldapChangesOf(p.mappers, { attributes: changed }) : {};
  const mapped = new Set(
    p.mappers.filter((m) => isAttributeMapper(m) && m.config['read.only'] !== 'true').map((m) => m.config['user.model.attribute']),
  );
  const unmapped = Object.keys(changed).find((k) => !writable || !mapped.has(k));
  if (unmapped) refuse(`attribute(${unmapped})`);
  try {
    await withAdmin(p.cfg, (c) =>
      c.modify(
        entry.dn,
        Object.entries(ldap).map(
          ([type, values]) =>
            new Change({ operation: values.length ? 'replace' : 'delete', modification: new Attribute({ type, values }) }),
        ),
      ),
    );
  } catch (e) {
    ctx.log.warn(`LDAP provider ${p.cfg.name}: update of ${user.username} failed: ${(e as Error).message}`);
    throw errorA(400, 'Could not modify attribute for DN');
  }
}

/** DELETE /users/{id} of a transient user: the entry goes in WRITABLE mode (a failure is 400 and nothing changes). */
export async function transientUserDelete(ctx: RequestContext, user: UserModel): Promise<void> {
  const f = transientFactsOf(user);
  if (f?.provider.cfg.editMode !== 'WRITABLE') return;
  try {
    await withAdmin(f.provider.cfg, (c) => c.del(f.entry.dn));
  } catch (e) {
    ctx.log.warn(`LDAP provider ${f.provider.cfg.name}: delete of ${user.username} failed: ${(e as Error).message}`);
    throw errorA(400, 'Could not remove user from LDAP');
  }
}
