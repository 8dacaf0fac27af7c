import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import type { RealmModel } from '../../db/models/realm';

/**
 * Ids from the file, as Keycloak's import keeps them (roles, groups, clients, scopes, mappers,
 * components, flows, authenticator configs, users): a realm exported, imported elsewhere and exported
 * again gives the same file. Ids are global, so one another realm already uses is not taken; the row
 * then gets a new one (as when a realm is imported twice under two names).
 *
 * The parts a new realm is set up with before the representation is read (realm roles such as
 * `offline_access` and the default role, the configs of the built-in flows) are given their file's id
 * afterwards ({@link rekeyRoles}, {@link rekeyAuthenticatorConfigs}): a copy of the row under the new
 * id, every reference moved to it, the old row removed, all inside the import's transaction.
 */

type IdTable = 'Client' | 'ClientScope' | 'ProtocolMapper' | 'Component' | 'Role' | 'Group' | 'User' | 'AuthenticatorConfig';

/** Ids of `ids` already used by rows of a table. */
export async function takenIds(ctx: RequestContext, table: IdTable, ids: unknown[]): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((x): x is string => typeof x === 'string' && x !== ''))];
  if (!wanted.length) return new Set();
  const model = ctx.db.models[table] as unknown as { findAll(o: object): Promise<Array<{ id: string }>> };
  const taken = new Set<string>();
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500);
    for (const r of await model.findAll({ where: { id: { [Op.in]: chunk } }, attributes: ['id'] })) taken.add(r.id);
  }
  return taken;
}

/** An id to keep: a non-empty string of at most 36 characters (the columns' width) that no row has yet. */
export const keepable = (id: unknown, taken: Set<string>): id is string =>
  typeof id === 'string' && id !== '' && id.length <= 36 && !taken.has(id);

/** Gives existing roles the ids of the file (`[from, to]`), references and the realm's default role included. */
export async function rekeyRoles(ctx: RequestContext, realm: RealmModel, pairs: Array<[string, string]>): Promise<void> {
  const m = ctx.db.models;
  const references = [
    [m.CompositeRole, 'compositeId'],
    [m.CompositeRole, 'childId'],
    [m.UserRoleMapping, 'roleId'],
    [m.GroupRoleMapping, 'roleId'],
    [m.ScopeMapping, 'roleId'],
  ] as const;
  for (const [from, to] of pairs) {
    const role = await m.Role.findByPk(from);
    if (!role) continue;
    const values = role.get({ plain: true }) as Record<string, unknown>;
    // The copy needs the name, which the unique index (container, name) holds for the old row meanwhile.
    await m.Role.update({ name: to }, { where: { id: from } });
    await m.Role.create({ ...values, id: to });
    for (const [model, column] of references) {
      await (model as unknown as { update(v: object, o: object): Promise<unknown> }).update(
        { [column]: to },
        { where: { [column]: from } },
      );
    }
    await m.Role.destroy({ where: { id: from } });
    if (realm.settings.defaultRoleId === from) {
      const settings = { ...realm.settings, defaultRoleId: to };
      await m.Realm.update({ settings }, { where: { id: realm.id } });
      realm.settings = settings;
    }
  }
}

/** Gives the authenticator configs the ids of the file, by alias; executions follow. */
export async function rekeyAuthenticatorConfigs(ctx: RequestContext, realm: RealmModel, reps: unknown): Promise<void> {
  const m = ctx.db.models;
  const given = new Map<string, string>();
  for (const c of Array.isArray(reps) ? reps : []) {
    if (c && typeof c === 'object' && typeof c.alias === 'string' && typeof c.id === 'string') given.set(c.alias, c.id);
  }
  if (!given.size) return;
  const stored = await m.AuthenticatorConfig.findAll({ where: { realmId: realm.id, alias: { [Op.in]: [...given.keys()] } } });
  const moves = stored.filter((c) => given.get(c.alias as string) !== c.id);
  const taken = await takenIds(
    ctx,
    'AuthenticatorConfig',
    moves.map((c) => given.get(c.alias as string)),
  );
  for (const c of moves) {
    const to = given.get(c.alias as string);
    if (!keepable(to, taken)) continue;
    taken.add(to);
    const values = c.get({ plain: true }) as Record<string, unknown>;
    // The alias is unique per realm: the old row gives it up first.
    await m.AuthenticatorConfig.update({ alias: to }, { where: { id: c.id } });
    await m.AuthenticatorConfig.create({ ...values, id: to });
    await m.AuthExecution.update({ configId: to }, { where: { configId: c.id } });
    await m.AuthenticatorConfig.destroy({ where: { id: c.id } });
  }
}
