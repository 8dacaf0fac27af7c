import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { errorA } from '../../core/errors';
import type { AuthzTarget } from './access';
import { cannotRead } from './access';

/**
 * Keycloak's policy providers: how each type keeps its settings in the policy's string `config`
 * (role, group and client-scope lists as JSON text of `{id, required|extendChildren}`, users and
 * clients as JSON arrays of ids, ...), how the typed representation (`roles: [{id, required}]`, ...)
 * maps onto it both ways, and how an export names what the ids point at (role names, usernames,
 * group paths, clientIds) so an import into another realm finds them again.
 *
 * `js`: Keycloak creates its "Default Policy" as a JavaScript policy that grants. Scripts cannot be
 * uploaded through the admin API (as in Keycloak, where upload_scripts is off); a stored `js` policy
 * keeps its `code` as Keycloak exports it, and the decision engine treats it as granting when the
 * code is Keycloak's default grant script and as denying otherwise (documented, not evaluated).
 */
type Body = Record<string, unknown>;
type Config = Record<string, string>;

/** Provider ids with their display name and group (`GET .../policy/providers`). */
export const POLICY_PROVIDERS: Array<{ type: string; name: string; group: string }> = [
  { type: 'aggregate', name: 'Aggregated', group: 'Others' },
  { type: 'client', name: 'Client', group: 'Identity Based' },
  { type: 'client-scope', name: 'Client Scope', group: 'Identity Based' },
  { type: 'group', name: 'Group', group: 'Identity Based' },
  { type: 'regex', name: 'Regex', group: 'Rule Based' },
  { type: 'resource', name: 'Resource-Based', group: 'Permission' },
  { type: 'role', name: 'Role', group: 'Identity Based' },
  { type: 'scope', name: 'Scope-Based', group: 'Permission' },
  { type: 'time', name: 'Time', group: 'Time Based' },
  { type: 'user', name: 'User', group: 'Identity Based' },
];

/** Every type a policy may have (`js` only as Keycloak's default policy or an import). */
export const POLICY_TYPES = new Set([...POLICY_PROVIDERS.map((p) => p.type), 'js']);
export const PERMISSION_TYPES = new Set(['resource', 'scope']);

/** Keycloak's stored JavaScript of the default policy. */
export const DEFAULT_POLICY_CODE = '// by default, grants any permission associated with this policy\n$evaluation.grant();\n';

/** The time policy's typed fields and their config keys. */
const TIME_FIELDS: Array<[string, string]> = [
  ['notBefore', 'nbf'],
  ['notOnOrAfter', 'noa'],
  ['dayMonth', 'dayMonth'],
  ['dayMonthEnd', 'dayMonthEnd'],
  ['month', 'month'],
  ['monthEnd', 'monthEnd'],
  ['year', 'year'],
  ['yearEnd', 'yearEnd'],
  ['hour', 'hour'],
  ['hourEnd', 'hourEnd'],
  ['minute', 'minute'],
  ['minuteEnd', 'minuteEnd'],
];

const parseList = (text: string | undefined): unknown[] => {
  if (!text) return [];
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
const bool = (v: unknown) => v === true || v === 'true';

/** `[{id, flag}]` entries of a typed list (`roles`, `groups`, `clientScopes`); a string is `{id}`. */
function refs(body: Body, key: string, flag: string): Array<{ id?: string; path?: string; flag: boolean }> | undefined {
  const raw = body[key];
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw cannotRead();
  return raw.map((x) => {
    if (typeof x === 'string') return { id: x, flag: false };
    if (!x || typeof x !== 'object') throw cannotRead();
    const o = x as Body;
    return { id: str(o.id), path: str(o.path), flag: bool(o[flag]) };
  });
}

/** A list of ids or names (`users`, `clients`). */
function names(body: Body, key: string): string[] | undefined {
  const raw = body[key];
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw cannotRead();
  return raw.filter((x) => x !== null && x !== undefined).map(String);
}

const notFoundIn = (policyName: string, what: string, ref: string) =>
  errorA(400, `Error while updating policy [${policyName}]. ${what} [${ref}] could not be found.`);

/** A role by id, realm role name, or `clientId/roleName`. */
async function roleId(ctx: RequestContext, t: AuthzTarget, ref: string, policyName: string): Promise<string> {
  const m = ctx.db.models;
  const slash = ref.indexOf('/');
  if (slash > 0) {
    const client = await m.Client.findOne({ where: { realmId: t.realm.id, clientId: ref.slice(0, slash) }, attributes: ['id'] });
    if (!client) throw errorA(400, `Client with id [${ref.slice(0, slash)}] not found.`);
    const role = await m.Role.findOne({ where: { clientId: client.id, name: ref.slice(slash + 1) }, attributes: ['id'] });
    if (role) return role.id;
    throw notFoundIn(policyName, 'Role', ref.slice(slash + 1));
  }
  return firstId(
    m.Role,
    [
      { realmId: t.realm.id, clientId: null, name: ref },
      { realmId: t.realm.id, id: ref },
    ],
    () => notFoundIn(policyName, 'Role', ref),
  );
}

/** The id of the first row matching one of `wheres`, tried in order (Keycloak's name-or-id lookups); `missing` when none does. */
async function firstId(
  model: { findOne(o: object): Promise<{ id: string } | null> },
  wheres: Array<Record<string, unknown>>,
  missing: () => Error,
): Promise<string> {
  for (const where of wheres) {
    const row = await model.findOne({ where, attributes: ['id'] });
    if (row) return row.id;
  }
  throw missing();
}

const userId = (ctx: RequestContext, t: AuthzTarget, ref: string, policyName: string) =>
  firstId(
    ctx.db.models.User,
    [
      { realmId: t.realm.id, id: ref },
      { realmId: t.realm.id, username: ref.toLowerCase() },
    ],
    () => notFoundIn(policyName, 'User', ref),
  );

const clientUuid = (ctx: RequestContext, t: AuthzTarget, ref: string, policyName: string) =>
  firstId(
    ctx.db.models.Client,
    [
      { realmId: t.realm.id, clientId: ref },
      { realmId: t.realm.id, id: ref },
    ],
    () => notFoundIn(policyName, 'Client', ref),
  );

const clientScopeId = (ctx: RequestContext, t: AuthzTarget, ref: string, policyName: string) =>
  firstId(
    ctx.db.models.ClientScope,
    [
      { realmId: t.realm.id, name: ref },
      { realmId: t.realm.id, id: ref },
    ],
    () => notFoundIn(policyName, 'Client Scope', ref),
  );

/** A group by id, or by path (`/a/b`) when no id is given. */
async function groupId(ctx: RequestContext, t: AuthzTarget, ref: { id?: string; path?: string }, policyName: string): Promise<string> {
  const Group = ctx.db.models.Group;
  if (ref.id) {
    const g = await Group.findOne({ where: { realmId: t.realm.id, id: ref.id }, attributes: ['id'] });
    if (!g) throw errorA(400, `Group with id [${ref.id}] not found`);
    return g.id;
  }
  if (!ref.path) throw errorA(400, `Error while updating policy [${policyName}]. You must provide the group id or path.`);
  let parent = ' ';
  for (const name of ref.path.split('/').filter(Boolean)) {
    const g = await Group.findOne({ where: { realmId: t.realm.id, parentId: parent, name }, attributes: ['id'] });
    if (!g) throw errorA(400, `Group with path [${ref.path}] not found`);
    parent = g.id;
  }
  if (parent === ' ') throw errorA(400, `Group with path [${ref.path}] not found`);
  return parent;
}

const DATE = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;

/**
 * The provider part of a policy's config from a typed body, names resolved to ids (400 when one
 * does not exist). `current` is the stored config an update starts from.
 */
export async function providerConfig(ctx: RequestContext, t: AuthzTarget, type: string, body: Body, policyName: string): Promise<Config> {
  const out: Config = {};
  switch (type) {
    case 'role': {
      const list = refs(body, 'roles', 'required') ?? [];
      const roles: Array<{ id: string; required: boolean }> = [];
      for (const r of list) roles.push({ id: await roleId(ctx, t, r.id ?? '', policyName), required: r.flag });
      out.roles = JSON.stringify(roles);
      if (body.fetchRoles !== undefined && body.fetchRoles !== null) out.fetchRoles = String(bool(body.fetchRoles));
      break;
    }
    case 'user': {
      const ids: string[] = [];
      for (const u of names(body, 'users') ?? []) ids.push(await userId(ctx, t, u, policyName));
      out.users = JSON.stringify([...new Set(ids)]);
      break;
    }
    case 'client': {
      const ids: string[] = [];
      for (const c of names(body, 'clients') ?? []) ids.push(await clientUuid(ctx, t, c, policyName));
      out.clients = JSON.stringify([...new Set(ids)]);
      break;
    }
    case 'client-scope': {
      const list: Array<{ id: string; required: boolean }> = [];
      for (const s of refs(body, 'clientScopes', 'required') ?? [])
        list.push({ id: await clientScopeId(ctx, t, s.id ?? '', policyName), required: s.flag });
      out.clientScopes = JSON.stringify(list);
      break;
    }
    case 'group': {
      const list: Array<{ id: string; extendChildren: boolean }> = [];
      for (const g of refs(body, 'groups', 'extendChildren') ?? [])
        list.push({ id: await groupId(ctx, t, g, policyName), extendChildren: g.flag });
      out.groups = JSON.stringify(list);
      const claim = str(body.groupsClaim);
      if (claim) out.groupsClaim = claim;
      break;
    }
    case 'time': {
      for (const [field, key] of TIME_FIELDS) {
        const v = str(body[field]);
        if (v === undefined || v === '') continue;
        if ((key === 'nbf' || key === 'noa') && !DATE.test(v))
          throw errorA(400, 'Could not parse a date using format [yyyy-MM-dd HH:mm:ss]');
        out[key] = v;
      }
      break;
    }
    case 'regex': {
      for (const k of ['targetClaim', 'pattern']) {
        const v = str(body[k]);
        if (v !== undefined) out[k] = v;
      }
      if (out.pattern !== undefined) {
        try {
          new RegExp(out.pattern);
        } catch {
          throw errorA(400, `Invalid regular expression [${out.pattern}]`);
        }
      }
      out.targetContextAttributes = String(bool(body.targetContextAttributes));
      break;
    }
    case 'js': {
      const code = str(body.code);
      if (code !== undefined) out.code = code;
      break;
    }
    case 'resource': {
      const rt = str(body.resourceType);
      if (rt?.trim()) out.defaultResourceType = rt;
      break;
    }
    default:
      break;
  }
  return out;
}

/**
 * A generic PolicyRepresentation's `config` read as the typed body its provider expects (the generic
 * endpoints and imports carry role lists etc. as JSON text in config).
 */
export function typedFromConfig(type: string, config: Config): Body {
  switch (type) {
    case 'role':
      return { roles: parseList(config.roles), ...(config.fetchRoles !== undefined ? { fetchRoles: config.fetchRoles } : {}) };
    case 'user':
      return { users: parseList(config.users) };
    case 'client':
      return { clients: parseList(config.clients) };
    case 'client-scope':
      return { clientScopes: parseList(config.clientScopes) };
    case 'group':
      return { groups: parseList(config.groups), groupsClaim: config.groupsClaim };
    case 'time':
      return Object.fromEntries(TIME_FIELDS.filter(([, k]) => config[k] !== undefined).map(([f, k]) => [f, config[k]]));
    case 'regex':
      return { targetClaim: config.targetClaim, pattern: config.pattern, targetContextAttributes: config.targetContextAttributes };
    case 'js':
      return { code: config.code };
    case 'resource':
      return { resourceType: config.defaultResourceType };
    default:
      return {};
  }
}

/** The typed representation's provider fields, from the stored config (`GET .../policy/{type}/{id}`). */
export function typedFields(type: string, config: Config): Body {
  switch (type) {
    case 'role':
      return { roles: parseList(config.roles), fetchRoles: config.fetchRoles === 'true' };
    case 'user':
      return { users: parseList(config.users) };
    case 'client':
      return { clients: parseList(config.clients) };
    case 'client-scope':
      return { clientScopes: parseList(config.clientScopes) };
    case 'group': {
      const out: Body = { groups: parseList(config.groups) };
      if (config.groupsClaim) out.groupsClaim = config.groupsClaim;
      return out;
    }
    case 'time':
      return Object.fromEntries(TIME_FIELDS.filter(([, k]) => config[k] !== undefined).map(([f, k]) => [f, config[k]]));
    case 'regex':
      return {
        ...(config.targetClaim !== undefined ? { targetClaim: config.targetClaim } : {}),
        ...(config.pattern !== undefined ? { pattern: config.pattern } : {}),
        targetContextAttributes: config.targetContextAttributes === 'true',
      };
    case 'js':
      return config.code !== undefined ? { code: config.code } : {};
    case 'resource':
      return config.defaultResourceType ? { resourceType: config.defaultResourceType } : {};
    default:
      return {};
  }
}

/** The config of an exported policy: ids replaced by what names them in any realm (Keycloak's onExport). */
export async function exportConfig(ctx: RequestContext, type: string, config: Config): Promise<Config> {
  const m = ctx.db.models;
  const out = { ...config };
  if (type === 'role' && config.roles) {
    const list = parseList(config.roles) as Array<{ id: string; required?: boolean }>;
    const roles = await m.Role.findAll({ where: { id: { [Op.in]: list.map((r) => r.id) } }, attributes: ['id', 'name', 'clientId'] });
    const clientIds = [...new Set(roles.map((r) => r.clientId).filter((c): c is string => !!c))];
    const clients = clientIds.length
      ? await m.Client.findAll({ where: { id: { [Op.in]: clientIds } }, attributes: ['id', 'clientId'] })
      : [];
    const named = (id: string) => {
      const r = roles.find((x) => x.id === id);
      if (!r) return id;
      const c = r.clientId ? clients.find((x) => x.id === r.clientId) : undefined;
      return c ? `${c.clientId}/${r.name}` : r.name;
    };
    out.roles = JSON.stringify(list.map((r) => ({ id: named(r.id), required: Boolean(r.required) })));
  }
  if (type === 'user' && config.users) {
    const ids = parseList(config.users).map(String);
    const users = await m.User.findAll({ where: { id: { [Op.in]: ids } }, attributes: ['id', 'username'] });
    out.users = JSON.stringify(ids.map((id) => users.find((u) => u.id === id)?.username ?? id));
  }
  if (type === 'client' && config.clients) {
    const ids = parseList(config.clients).map(String);
    const clients = await m.Client.findAll({ where: { id: { [Op.in]: ids } }, attributes: ['id', 'clientId'] });
    out.clients = JSON.stringify(ids.map((id) => clients.find((c) => c.id === id)?.clientId ?? id));
  }
  if (type === 'client-scope' && config.clientScopes) {
    const list = parseList(config.clientScopes) as Array<{ id: string; required?: boolean }>;
    const scopes = await m.ClientScope.findAll({ where: { id: { [Op.in]: list.map((s) => s.id) } }, attributes: ['id', 'name'] });
    out.clientScopes = JSON.stringify(
      list.map((s) => ({ id: scopes.find((x) => x.id === s.id)?.name ?? s.id, required: Boolean(s.required) })),
    );
  }
  if (type === 'group' && config.groups) {
    const list = parseList(config.groups) as Array<{ id: string; extendChildren?: boolean }>;
    const paths: Array<{ path: string; extendChildren: boolean }> = [];
    for (const g of list) paths.push({ path: await groupPath(ctx, g.id), extendChildren: Boolean(g.extendChildren) });
    out.groups = JSON.stringify(paths);
  }
  return out;
}

/** `/parent/child` of a group (walking up its parents). */
async function groupPath(ctx: RequestContext, id: string): Promise<string> {
  const parts: string[] = [];
  let cur: string | undefined = id;
  for (let depth = 0; cur && cur !== ' ' && depth < 100; depth++) {
    const g: { name: string; parentId: string } | null = await ctx.db.models.Group.findByPk(cur, { attributes: ['name', 'parentId'] });
    if (!g) break;
    parts.unshift(g.name);
    cur = g.parentId;
  }
  return `/${parts.join('/')}`;
}
