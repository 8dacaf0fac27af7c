import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deleteRealmRows } from '../../core/cascade';
import { systemContext } from '../../core/context';
import { HttpError } from '../../core/errors';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { UserRep } from '../../representations/user';
import { Op } from 'sequelize';
import { MASTER } from '../../auth/permissions';
import { bootstrap } from '../realms/realms';
import { setupMasterAdminClient } from '../realms/realm-setup';
import { hashPasswordsAhead } from '../users/users-input';
import { createRealm } from './create-realm';
import { importOrganizationMembers } from '../organizations/organization-import-export';
import { importServiceAccountUsers, importUsers } from './import-bulk';
import { readRealmSkeletons, readUsers } from './json-users';
import { importAuthorization, withoutAuthorizationSettings } from './realm-import-authz';

/**
 * `idserver import` (Keycloak's `kc.sh import`): realms from a directory (`<realm>-realm.json` and its
 * `<realm>-users-<n>.json` files) or from one file (a realm or an array of realms), in Keycloak's
 * format. Users keep their ids, credential hashes are stored as given (a realm exported from Keycloak
 * logs in with its old passwords), plain `value`s are hashed with the realm's policy.
 *
 * One transaction per realm, not a clean-up after a failure: a realm is replaced and created, and all
 * its users inserted, in one transaction, so a failed or interrupted import (an error, Ctrl-C, a kill,
 * a lost connection) leaves the realm as it was before, by the database's own rollback. A clean-up
 * would itself be skipped by a kill. The cost: the transaction grows with the realm (on SQLite the
 * write lock is held throughout; on a Galera cluster mind wsrep_max_ws_size), and users are read and
 * inserted a batch at a time so memory does not grow with it.
 */

export interface FullImportOptions {
  dir?: string;
  file?: string;
  /** Replace a realm of the same name (default, as Keycloak); false skips it. */
  override?: boolean;
  /** Called when the import of a realm starts. */
  realmStart?: (realm: string) => void;
  /** Called after each batch of users with the realm and the users imported so far. */
  progress?: (realm: string, users: number) => void;
  /** Called when a realm is imported (committed) or skipped. */
  realmDone?: (result: ImportedRealm) => void;
  /** Messages for the operator (a realm skipped). */
  notice?: (message: string) => void;
}

export interface ImportedRealm {
  realm: string;
  users: number;
  skipped?: boolean;
}

/** Users inserted per batch: a few INSERTs per table each, memory for one batch. */
export const IMPORT_BATCH = 500;

interface Source {
  rep: Record<string, unknown>;
  /** Where its users are: files with the index of the realm inside them. */
  userFiles: Array<{ path: string; index: number }>;
}

async function sourcesOf(opts: FullImportOptions): Promise<Source[]> {
  if (!opts.dir === !opts.file) throw new Error('Give exactly one of --dir and --file');
  let out: Source[];
  if (opts.file) {
    if (!existsSync(opts.file)) throw new Error(`File ${opts.file} does not exist`);
    out = (await readRealmSkeletons(opts.file)).map((rep, index) => ({ rep, userFiles: [{ path: opts.file as string, index }] }));
  } else {
    const dir = opts.dir as string;
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`Directory ${dir} does not exist`);
    const files = readdirSync(dir).sort();
    out = [];
    for (const f of files.filter((x) => x.endsWith('-realm.json'))) {
      const path = join(dir, f);
      const [rep] = await readRealmSkeletons(path);
      const name = f.slice(0, -'-realm.json'.length);
      const number = (x: string) => Number(x.slice(name.length + '-users-'.length, -'.json'.length));
      const userFiles = files
        .filter((x) => x.startsWith(`${name}-users-`) && /^\d+$/.test(x.slice(name.length + '-users-'.length, -'.json'.length)))
        .sort((a, b) => number(a) - number(b))
        .map((x) => ({ path: join(dir, x), index: 0 }));
      out.push({ rep, userFiles: [{ path, index: 0 }, ...userFiles] });
    }
    if (!out.length) throw new Error(`No <realm>-realm.json file in ${dir}`);
  }
  for (const s of out) if (typeof s.rep.realm !== 'string' || !s.rep.realm) throw new Error('A realm in the import has no name ("realm")');
  // master first: the `<realm>-realm` clients it brings are then the other realms' admin clients.
  return [...out.filter((s) => s.rep.realm === 'master'), ...out.filter((s) => s.rep.realm !== 'master')];
}

/**
 * Deletes a realm inside the import's transaction, master too (deleteRealm refuses it). The realm's
 * `<realm>-realm` client in master stays: the realm that replaces it has the same name, so the new
 * realm finds it (setupMasterAdminClient) with its ids and the grants master users hold on it; when
 * master came from the same import it is the file's.
 */
async function removeRealm(db: Db, realm: RealmModel): Promise<void> {
  await deleteRealmRows(db, realm.id);
  await db.models.Realm.destroy({ where: { id: realm.id } });
}

/**
 * After master is replaced, every other realm of the database has its `<realm>-realm` client in the
 * new master again (the file's, or a new one), as Keycloak re-creates them after importing master.
 */
async function restoreAdminClients(db: Db, master: RealmModel): Promise<void> {
  for (const realm of await db.models.Realm.findAll({ where: { name: { [Op.ne]: MASTER } } })) {
    await setupMasterAdminClient(db, realm, master);
  }
}

const describe = (e: unknown) => (e instanceof HttpError ? JSON.stringify(e.body ?? e.message) : (e as Error).message);

async function importRealm(db: Db, source: Source, opts: FullImportOptions): Promise<ImportedRealm> {
  const name = source.rep.realm as string;
  const existing = await db.models.Realm.findOne({ where: { name } });
  if (existing && opts.override === false) {
    opts.notice?.(`Realm '${name}' already exists; skipped (--override=false)`);
    return { realm: name, users: 0, skipped: true };
  }
  let users = 0;
  opts.realmStart?.(name);
  await db.transaction(async () => {
    users = 0; // a rerun after a lost lock race starts over
    if (existing) await removeRealm(db, existing);
    const { users: _none, ...rep } = source.rep;
    // Authorization settings name users, which come after the realm: they are imported last.
    if (Array.isArray(rep.clients)) rep.clients = withoutAuthorizationSettings(rep.clients) as typeof rep.clients;
    try {
      await createRealm(systemContext(db), rep);
    } catch (e) {
      throw new Error(`Realm '${name}' could not be imported: ${describe(e)}`);
    }
    const realm = (await db.models.Realm.findOne({ where: { name } })) as RealmModel;
    if (existing && name === MASTER) await restoreAdminClients(db, realm);
    for (const file of source.userFiles) {
      for await (const batch of readUsers(file.path, file.index, IMPORT_BATCH)) {
        // A fresh context per batch: loaders and memo would otherwise keep every batch alive.
        const ctx = systemContext(db);
        const reps = batch as UserRep[];
        const accounts = reps.filter((u) => u.serviceAccountClientId);
        const regular = reps.filter((u) => !u.serviceAccountClientId);
        try {
          await importServiceAccountUsers(ctx, realm, accounts);
          await hashPasswordsAhead(realm, regular);
          await importUsers(ctx, realm, regular, { keepIds: true });
        } catch (e) {
          throw new Error(`Users of realm '${name}' in ${file.path} could not be imported: ${describe(e)}`);
        }
        users += reps.length;
        opts.progress?.(name, users);
      }
    }
    await importOrganizationMembers(systemContext(db), realm, source.rep.organizations);
    try {
      await importAuthorization(systemContext(db), realm, source.rep.clients);
    } catch (e) {
      throw new Error(`Authorization settings of realm '${name}' could not be imported: ${describe(e)}`);
    }
  });
  return { realm: name, users };
}

/** Runs `kc.sh import`'s job on an open (migrated) database; returns what was imported or skipped, realm by realm. */
export async function fullImport(db: Db, opts: FullImportOptions): Promise<ImportedRealm[]> {
  const sources = await sourcesOf(opts);
  // Without master in the files, an empty database gets one first (no admin user: `start` creates it),
  // as Keycloak creates master before an import that does not bring it: the realms get their admin clients.
  if (!sources.some((s) => s.rep.realm === MASTER) && !(await db.models.Realm.findOne({ where: { name: MASTER } }))) {
    await bootstrap(db, { mode: 'start-dev' });
  }
  const done: ImportedRealm[] = [];
  for (const s of sources) {
    const result = await importRealm(db, s, opts);
    done.push(result);
    opts.realmDone?.(result);
  }
  return done;
}
