import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { Op } from 'sequelize';
import { type RequestContext, systemContext } from '../../core/context';
import type { Db } from '../../db';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { COMPATIBLE_KEYCLOAK_VERSION } from '../../keycloak/server-info-catalogues';
import type { RealmRepresentation } from '../../representations/realm';
import type { UserRep } from '../../representations/user';
import { escapeName } from '../groups/group-paths';
import { consentsOfUsers } from '../users/consents';
import { linksOfUsers } from '../users/federated-links';
import { partialExport } from './partial-export';

/**
 * `idserver export` (Keycloak's `kc.sh export`): every realm, or one, with everything partial export
 * leaves out: users with their credentials (hashes as stored, `secretData`/`credentialData`), required
 * actions, all attributes, role mappings by name, groups by path, identity links and consents; client,
 * identity-provider and component secrets in clear. Users are read a page at a time in id order and
 * written as they are read, so memory does not grow with their number.
 */

export type UsersStrategy = 'realm_file' | 'same_file' | 'different_files' | 'skip';

export interface FullExportOptions {
  /** Directory mode: `<realm>-realm.json` plus user files per `users`. */
  dir?: string;
  /** File mode: one JSON array of realms, users inside each realm. */
  file?: string;
  /** Only this realm (default: every realm, master first). */
  realm?: string;
  users?: UsersStrategy;
  usersPerFile?: number;
  /** Called when the export of a realm starts. */
  realmStart?: (realm: string) => void;
  /** Called after each page of users with the realm and the users written so far. */
  progress?: (realm: string, users: number) => void;
  /** Called when a realm (with its user files) is written. */
  realmDone?: (realm: string, users: number) => void;
}

/** Users read and rendered per statement batch: bounds memory, keeps the statement count at ~8 per page. */
export const USER_PAGE = 500;

/** The realms to export: `name`, or every realm with master first (Keycloak exports master too). */
async function realmsToExport(db: Db, name?: string): Promise<RealmModel[]> {
  if (name) {
    const realm = await db.models.Realm.findOne({ where: { name } });
    if (!realm) throw new Error(`Realm '${name}' does not exist`);
    return [realm];
  }
  const all = await db.models.Realm.findAll({ order: [['name', 'ASC']] });
  return [...all.filter((r) => r.name === 'master'), ...all.filter((r) => r.name !== 'master')];
}

/** The realm without regular users: partial export with clients, groups, roles and secrets, as `kc.sh export` writes the realm file. */
export async function realmForExport(ctx: RequestContext, realm: RealmModel): Promise<RealmRepresentation> {
  const rep = await partialExport(ctx, realm, { exportClients: true, exportGroupsAndRoles: true, exportSecrets: true });
  // Service-account users are users: they are written with the others, with their credentials.
  delete rep.users;
  // As Keycloak's export: the version whose format this is (Keycloak's import runs only the migrations after it).
  rep.keycloakVersion = COMPATIBLE_KEYCLOAK_VERSION;
  // The providers' listing masks their secrets as GET does: the stored values are exported.
  const stored = await ctx.db.models.IdentityProvider.findAll({ where: { realmId: realm.id }, attributes: ['alias', 'config'] });
  const configOf = new Map(stored.map((p) => [p.alias, p.config ?? {}]));
  for (const p of Array.isArray(rep.identityProviders) ? rep.identityProviders : []) {
    const config = configOf.get(p.alias as string);
    if (config && p.config) p.config = Object.fromEntries(Object.keys(p.config).map((k) => [k, config[k] ?? p.config?.[k]]));
  }
  return rep;
}

/** What a page of users refers to by id, read once per realm: role names with their clientIds, group paths, client ids. */
interface RealmIndex {
  roles: Map<string, { name: string; clientId: string | null }>;
  groupPaths: Map<string, string>;
  clientIds: Map<string, string>;
}

async function realmIndex(db: Db, realm: RealmModel): Promise<RealmIndex> {
  const m = db.models;
  const clients = await m.Client.findAll({ where: { realmId: realm.id }, attributes: ['id', 'clientId'] });
  const clientIds = new Map(clients.map((c) => [c.id, c.clientId]));
  const roles = new Map(
    (await m.Role.findAll({ where: { realmId: realm.id }, attributes: ['id', 'name', 'clientId'] })).map((r) => [
      r.id,
      { name: r.name, clientId: r.clientId ? (clientIds.get(r.clientId) ?? null) : null },
    ]),
  );
  const groups = await m.Group.findAll({ where: { realmId: realm.id, organizationId: null }, attributes: ['id', 'parentId', 'name'] });
  const byId = new Map(groups.map((g) => [g.id, g]));
  const groupPaths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = groupPaths.get(id);
    if (known !== undefined) return known;
    const g = byId.get(id);
    if (!g) return '';
    const path = `${g.parentId === TOP_LEVEL ? '' : pathOf(g.parentId)}/${escapeName(g.name)}`;
    groupPaths.set(id, path);
    return path;
  };
  for (const g of groups) pathOf(g.id);
  return { roles, groupPaths, clientIds };
}

const byKey = <T>(rows: T[], key: (r: T) => string): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
};

/** A page of users as Keycloak's export writes them (UserRepresentation with credentials and links), a fixed number of statements. */
async function exportUserPage(ctx: RequestContext, realm: RealmModel, index: RealmIndex, users: UserModel[]): Promise<UserRep[]> {
  const m = ctx.db.models;
  const ids = users.map((u) => u.id);
  const where = { userId: { [Op.in]: ids } };
  const [attrs, actions, creds, memberships, mappings, links, consents] = await Promise.all([
    m.UserAttribute.findAll({ where, order: [['name', 'ASC']] }),
    m.UserRequiredAction.findAll({ where }),
    m.Credential.findAll({
      where,
      order: [
        ['priority', 'ASC'],
        ['createdDate', 'ASC'],
        ['id', 'ASC'],
      ],
    }),
    // What a hardcoded LDAP mapper gives is the mapper's, not the user's (Keycloak's export reads the stored mappings; ADR 47).
    m.UserGroupMembership.findAll({ where: { ...where, mapperId: null } }),
    m.UserRoleMapping.findAll({ where: { ...where, mapperId: null } }),
    linksOfUsers(ctx.db, realm, ids),
    consentsOfUsers(ctx, realm, ids),
  ]);
  const attrsOf = byKey(attrs, (a) => a.userId);
  const actionsOf = byKey(actions, (a) => a.userId);
  const credsOf = byKey(creds, (c) => c.userId);
  const groupsOf = byKey(memberships, (g) => g.userId);
  const rolesOf = byKey(mappings, (r) => r.userId);
  return users.map((u, i) => {
    const rep: UserRep = { id: u.id, username: u.username };
    if (u.firstName != null) rep.firstName = u.firstName;
    if (u.lastName != null) rep.lastName = u.lastName;
    if (u.email != null) rep.email = u.email;
    rep.emailVerified = u.emailVerified;
    const attributes: Record<string, string[]> = {};
    for (const a of attrsOf.get(u.id) ?? []) attributes[a.name] = [...(attributes[a.name] ?? []), a.value as string];
    if (Object.keys(attributes).length) rep.attributes = attributes;
    rep.createdTimestamp = Number(u.createdTimestamp);
    rep.enabled = u.enabled;
    rep.totp = false;
    if (u.federationLink) rep.federationLink = u.federationLink;
    if (u.serviceAccountClientLink) rep.serviceAccountClientId = index.clientIds.get(u.serviceAccountClientLink);
    rep.credentials = (credsOf.get(u.id) ?? []).map((c) => ({
      id: c.id,
      type: c.type,
      ...(c.userLabel != null ? { userLabel: c.userLabel } : {}),
      createdDate: Number(c.createdDate),
      secretData: c.secretData,
      credentialData: c.credentialData,
      priority: c.priority,
    }));
    rep.disableableCredentialTypes = [];
    rep.requiredActions = (actionsOf.get(u.id) ?? []).map((a) => a.requiredAction).sort();
    if (links[i].length) rep.federatedIdentities = links[i];
    const roles = (rolesOf.get(u.id) ?? []).map((r) => index.roles.get(r.roleId)).filter((r) => !!r);
    rep.realmRoles = roles
      .filter((r) => !r.clientId)
      .map((r) => r.name)
      .sort();
    const clientRoles: Record<string, string[]> = {};
    for (const r of roles) if (r.clientId) clientRoles[r.clientId] = [...(clientRoles[r.clientId] ?? []), r.name];
    for (const list of Object.values(clientRoles)) list.sort();
    if (Object.keys(clientRoles).length)
      rep.clientRoles = Object.fromEntries(Object.entries(clientRoles).sort(([a], [b]) => (a < b ? -1 : 1)));
    // Offline grants are sessions, not consents: only stored consents are exported.
    const granted = consents[i].filter((c) => c.createdDate != null).map(({ additionalGrants: _grants, ...c }) => c);
    if (granted.length) rep.clientConsents = granted;
    rep.notBefore = u.notBefore;
    rep.groups = (groupsOf.get(u.id) ?? [])
      .map((g) => index.groupPaths.get(g.groupId))
      .filter((p): p is string => !!p)
      .sort();
    return rep;
  });
}

/** The realm's users in id order, a page at a time (keyset paging: each page one indexed range read). */
export async function* exportUsers(db: Db, realm: RealmModel, pageSize = USER_PAGE): AsyncGenerator<UserRep[]> {
  const index = await realmIndex(db, realm);
  let after = '';
  for (;;) {
    const page = await db.models.User.findAll({
      where: { realmId: realm.id, id: { [Op.gt]: after } },
      order: [['id', 'ASC']],
      limit: pageSize,
    });
    if (!page.length) return;
    // A fresh context per page: its loaders and memo would otherwise keep every page alive.
    yield await exportUserPage(systemContext(db), realm, index, page);
    after = page[page.length - 1].id;
  }
}

/** A JSON file written piece by piece; `write` waits when the stream's buffer is full (back-pressure). */
class JsonOut {
  private readonly out: WriteStream;
  constructor(readonly path: string) {
    this.out = createWriteStream(path, { encoding: 'utf8', mode: 0o600 });
  }
  async write(text: string): Promise<void> {
    if (!this.out.write(text)) await new Promise<void>((ok) => this.out.once('drain', ok));
  }
  close(): Promise<void> {
    return new Promise((ok, fail) => {
      this.out.once('error', fail);
      this.out.end(ok);
    });
  }
}

const indent = (json: string, pad: string) => json.replace(/\n/g, `\n${pad}`);

/**
 * Writes `rep` as a pretty-printed object with a `users` array last, the users streamed in: the
 * realm (or user file) head is serialised whole, the users page by page.
 */
async function writeWithUsers(out: JsonOut, head: object, users: AsyncIterable<UserRep[]>, pad: string, onPage?: (n: number) => void) {
  const text = JSON.stringify(head, null, 2);
  const open = text.length > 2 ? `${text.slice(0, -2)},\n  "users": [` : '{\n  "users": [';
  await out.write(indent(open, pad));
  let n = 0;
  for await (const page of users) {
    for (const u of page) {
      await out.write(`${n++ ? ',' : ''}\n${pad}    ${indent(JSON.stringify(u, null, 2), `${pad}    `)}`);
    }
    onPage?.(n);
  }
  await out.write(`${n ? `\n${pad}  ` : ' '}]\n${pad}}`);
  return n;
}

/** Yields at most `limit` users at a time from pages of any size, so a file holds exactly `usersPerFile`. */
async function* regroup(pages: AsyncIterable<UserRep[]>, size: number): AsyncGenerator<UserRep[]> {
  let buf: UserRep[] = [];
  for await (const page of pages) {
    buf.push(...page);
    while (buf.length >= size) {
      yield buf.slice(0, size);
      buf = buf.slice(size);
    }
  }
  if (buf.length) yield buf;
}

async function* single<T>(items: T[]): AsyncGenerator<T[]> {
  yield items;
}

/** Runs `kc.sh export`'s job on an open database. Returns the realms written with their user counts. */
export async function fullExport(db: Db, opts: FullExportOptions): Promise<Array<{ realm: string; users: number }>> {
  if (!opts.dir === !opts.file) throw new Error('Give exactly one of --dir and --file');
  const strategy = opts.users ?? (opts.dir ? 'different_files' : 'realm_file');
  if (opts.file && (strategy === 'same_file' || strategy === 'different_files')) {
    throw new Error(`--users=${strategy} needs --dir; with --file users are written in the realm (realm_file) or skipped`);
  }
  const perFile = opts.usersPerFile ?? 50;
  const realms = await realmsToExport(db, opts.realm);
  const done: Array<{ realm: string; users: number }> = [];
  const ctx = systemContext(db);
  if (opts.file) {
    const out = new JsonOut(opts.file);
    await out.write('[');
    for (const [i, realm] of realms.entries()) {
      opts.realmStart?.(realm.name);
      const rep = await realmForExport(ctx, realm);
      await out.write(i ? ', ' : ' ');
      let users = 0;
      if (strategy === 'skip') await out.write(indent(JSON.stringify(rep, null, 2), '  '));
      else users = await writeWithUsers(out, rep, exportUsers(db, realm), '  ', (n) => opts.progress?.(realm.name, n));
      done.push({ realm: realm.name, users });
      opts.realmDone?.(realm.name, users);
    }
    await out.write(' ]\n');
    await out.close();
    return done;
  }
  const dir = opts.dir as string;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const realm of realms) {
    opts.realmStart?.(realm.name);
    const rep = await realmForExport(ctx, realm);
    const realmFile = new JsonOut(join(dir, `${realm.name}-realm.json`));
    let users = 0;
    const progress = (n: number) => opts.progress?.(realm.name, users + n);
    if (strategy === 'realm_file') users = await writeWithUsers(realmFile, rep, exportUsers(db, realm), '', progress);
    else await realmFile.write(JSON.stringify(rep, null, 2));
    await realmFile.write('\n');
    await realmFile.close();
    if (strategy === 'same_file') {
      const out = new JsonOut(join(dir, `${realm.name}-users-0.json`));
      users = await writeWithUsers(out, { realm: realm.name }, exportUsers(db, realm), '', progress);
      await out.write('\n');
      await out.close();
    } else if (strategy === 'different_files') {
      let fileNo = 0;
      for await (const part of regroup(exportUsers(db, realm), perFile)) {
        const out = new JsonOut(join(dir, `${realm.name}-users-${fileNo++}.json`));
        users += await writeWithUsers(out, { realm: realm.name }, single(part), '');
        await out.write('\n');
        await out.close();
        opts.progress?.(realm.name, users);
      }
    }
    done.push({ realm: realm.name, users });
    opts.realmDone?.(realm.name, users);
  }
  return done;
}
