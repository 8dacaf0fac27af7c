import { requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import { cannotParse, conflict } from '../../core/errors';
import { recordAdminEvents } from '../../core/admin-events';
import { hashPasswordsAhead } from '../users/users-input';
import { derivedContext, type RequestContext } from '../../core/context';
import {
  type Item,
  type Kind,
  type Rep,
  type ResourceType,
  clientsKind,
  groupsKind,
  identityProviderMappersKind,
  identityProvidersKind,
  rolesKinds,
  usersKind,
} from './partial-import-kinds';
import { importAuthorization } from './realm-import-authz';

/**
 * POST /{realm}/partialImport (core reference §3.13): imports users, groups, realm and client
 * roles, clients and identity providers into an existing realm. `ifResourceExists` decides what
 * happens to a resource that exists: FAIL (default) → 409 before anything is written, SKIP, or
 * OVERWRITE (deleted and created again). One transaction: any failure leaves the realm unchanged.
 */
export type Policy = 'FAIL' | 'SKIP' | 'OVERWRITE';
export type Action = 'ADDED' | 'SKIPPED' | 'OVERWRITTEN';

export interface PartialImportResult {
  action: Action;
  resourceType: ResourceType;
  resourceName: string;
  id: string;
}

export interface PartialImportResults {
  overwritten: number;
  added: number;
  skipped: number;
  results: PartialImportResult[];
}

const POLICIES = new Set<Policy>(['FAIL', 'SKIP', 'OVERWRITE']);
/** A list of representations; anything else is Jackson's mapping error. */
const objects = (v: unknown): Rep[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => !x || typeof x !== 'object' || Array.isArray(x))) throw cannotParse('mapping');
  return v as Rep[];
};

/** The body as PartialImportRepresentation; an unknown `ifResourceExists` or a wrong shape is a 400. */
function parse(body: unknown): { policy: Policy; rep: Rep } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  const rep = body as Rep;
  const policy = (rep.ifResourceExists ?? 'FAIL') as Policy;
  if (!POLICIES.has(policy)) throw cannotParse('mapping');
  if (rep.roles !== undefined && rep.roles !== null && (typeof rep.roles !== 'object' || Array.isArray(rep.roles)))
    throw cannotParse('mapping');
  for (const f of ['users', 'clients', 'groups', 'identityProviders', 'identityProviderMappers']) objects(rep[f]);
  return { policy, rep };
}

/** A view of the realm on which services record no admin events (the import records its own, one per result). */
function quiet(realm: RealmModel): RealmModel {
  return new Proxy(realm, {
    get(target, prop) {
      if (prop === 'settings') return { ...target.settings, adminEventsEnabled: false };
      return Reflect.get(target, prop, target);
    },
  });
}

/** Partial import's elevated context: the caller's loaders, full rights (manage-realm was checked). */
const elevated = (ctx: RequestContext): RequestContext => derivedContext(ctx, { actor: null, memo: new Map() });

/** Creates the items of a kind: all at once when the kind can (users, groups), else one by one. Returns their ids in order. */
async function createEach(kind: Kind, items: Item[]): Promise<string[]> {
  if (!items.length) return [];
  if (kind.createAll) return kind.createAll(items);
  const ids: string[] = [];
  for (const item of items) ids.push(await kind.create(item));
  return ids;
}

/** POST /{realm}/partialImport (manage-realm): returns the counts and one result per resource. */
export async function partialImport(ctx: RequestContext, realm: RealmModel, body: unknown): Promise<PartialImportResults> {
  await requireCap(ctx, realm, 'manageRealm');
  const { policy, rep } = parse(body);
  const sys = elevated(ctx);
  const view = quiet(realm);
  const clients = objects(rep.clients);
  const kinds: Kind[] = [
    clientsKind(sys, view, clients),
    ...rolesKinds(sys, view, (rep.roles as Rep | undefined) ?? {}, new Set(clients.map((c) => String(c.clientId)))),
    identityProvidersKind(sys, view, objects(rep.identityProviders)),
    identityProviderMappersKind(sys, view, objects(rep.identityProviderMappers)),
    groupsKind(sys, view, objects(rep.groups)),
    usersKind(sys, view, objects(rep.users)),
  ];
  const results: Array<PartialImportResult & { item: Item; kind: Kind }> = [];
  // Plain passwords are hashed before the transaction: the write lock does not wait for the CPU.
  await hashPasswordsAhead(realm, objects(rep.users));
  await ctx.db.transaction(async () => {
    const prepared: Item[][] = [];
    for (const kind of kinds) {
      const items = await kind.prepare();
      if (policy === 'FAIL') {
        const taken = items.find((i) => i.existingId);
        if (taken) throw conflict(kind.existsMessage(taken));
      }
      prepared.push(items);
    }
    for (const [k, kind] of kinds.entries()) {
      const items = prepared[k];
      const add = (action: Action, item: Item, id: string) =>
        results.push({ action, resourceType: kind.type, resourceName: item.name, id, item, kind });
      const existing = items.filter((i) => i.existingId);
      if (policy === 'OVERWRITE') {
        for (const item of existing) await kind.remove(item);
        for (const [i, id] of (await createEach(kind, existing)).entries()) add('OVERWRITTEN', existing[i], id);
      } else {
        for (const item of existing) add('SKIPPED', item, item.reportedId as string);
      }
      const fresh = items.filter((i) => !i.existingId);
      for (const [i, id] of (await createEach(kind, fresh)).entries()) add('ADDED', fresh[i], id);
      await kind.finish?.();
    }
    // Clients added or overwritten get their authorization settings once the roles, groups and users they name exist.
    const written = results.filter((r) => r.resourceType === 'CLIENT' && r.action !== 'SKIPPED').map((r) => r.item.rep);
    await importAuthorization(sys, view, written);
    await recordAdminEvents(
      ctx,
      realm,
      results
        .filter((r) => r.action !== 'SKIPPED')
        .map((r) => ({
          operationType: r.action === 'ADDED' ? ('CREATE' as const) : ('UPDATE' as const),
          ...r.kind.event(r.id, r.item),
          representation: r.item.rep,
        })),
    );
  });
  const count = (a: Action) => results.filter((r) => r.action === a).length;
  return {
    overwritten: count('OVERWRITTEN'),
    added: count('ADDED'),
    skipped: count('SKIPPED'),
    results: results.map(({ action, resourceType, resourceName, id }) => ({ action, resourceType, resourceName, id })),
  };
}
