import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { clock } from '../../core/clock';
import { historyCount, passwordAgeDays } from './password-policy';
import type { CredentialRow } from './users-input';

/**
 * Storing credentials of a user inside the caller's transaction. A new password replaces the
 * current one in place (same id and priority, as Keycloak updates it); the replaced hash is kept as
 * a `password-history` credential while the realm's `passwordHistory(n)` or `passwordAge(days)`
 * policy asks for it. Older entries go as in Keycloak's PasswordCredentialProvider: those beyond the
 * newest n - 1 that are also older than `days` (the entry just made stays). Other credential types
 * are added.
 */
export async function storeCredentialRows(db: Db, realm: RealmModel, userId: string, rows: CredentialRow[]): Promise<void> {
  const { Credential } = db.models;
  for (const row of rows) {
    if (row.type !== 'password') {
      await Credential.create({ ...row, userId });
      continue;
    }
    const current = await Credential.findAll({ where: { userId, type: 'password' }, order: [['priority', 'ASC']] });
    const keep = Math.max(historyCount(realm) - 1, 0);
    const ageDays = Math.max(passwordAgeDays(realm), 0);
    let made: string | undefined;
    if (!current.length) {
      const last = (await Credential.max('priority', { where: { userId, type: { [Op.ne]: 'password-history' } } })) as number | null;
      await Credential.create({ ...row, userId, priority: last ? Number(last) + 10 : row.priority });
    } else {
      const [main, ...extra] = current;
      if (keep > 0 || ageDays > 0) {
        made = randomUUID();
        await Credential.create({
          id: made,
          userId,
          type: 'password-history',
          userLabel: null,
          secretData: main.secretData,
          credentialData: main.credentialData,
          priority: main.priority,
          createdDate: main.createdDate,
        });
      }
      main.set({
        secretData: row.secretData,
        credentialData: row.credentialData,
        createdDate: row.createdDate,
        userLabel: row.userLabel ?? main.userLabel,
      });
      await main.save();
      if (extra.length) await Credential.destroy({ where: { id: { [Op.in]: extra.map((c) => c.id) } } });
    }
    await trimHistory(db, userId, keep, clock.now() - ageDays * 86_400_000, made);
  }
}

/** Removes the password-history credentials beyond the newest `keep` that were made before `before` (except `made`). */
async function trimHistory(db: Db, userId: string, keep: number, before: number, made: string | undefined): Promise<void> {
  const { Credential } = db.models;
  const history = await Credential.findAll({
    where: { userId, type: 'password-history' },
    order: [['createdDate', 'DESC']],
    attributes: ['id', 'createdDate'],
  });
  const stale = history
    .slice(keep)
    .filter((c) => c.id !== made && Number(c.createdDate ?? 0) < before)
    .map((c) => c.id);
  if (stale.length) await Credential.destroy({ where: { id: { [Op.in]: stale } } });
}
