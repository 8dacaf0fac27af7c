/**
 * What a database error is, on SQLite and on MySQL/MariaDB alike. The one classifier: the retry in
 * `db.transaction` and the mapping to Keycloak's errors (src/core/db-errors.ts) both ask it.
 */
export type DbErrorKind = 'unique' | 'foreign-key' | 'deadlock' | 'lock-timeout' | 'busy' | 'too-long';

interface SqlError {
  name?: string;
  code?: string;
  message?: string;
  parent?: { code?: string; errno?: number; message?: string };
  original?: { code?: string };
}

/**
 * A value longer than its VARCHAR column, refused before the statement runs (src/db/lengths.ts), so
 * both databases refuse it alike: MariaDB would refuse it itself, SQLite would store it.
 */
export class ValueTooLongError extends Error {
  constructor(
    readonly table: string,
    readonly column: string,
    readonly max: number,
  ) {
    super(`${column} is longer than ${max} characters`);
    this.name = 'ValueTooLongError';
  }
}

export function dbErrorKind(err: unknown): DbErrorKind | null {
  const e = err as SqlError | null;
  if (!e || typeof e !== 'object') return null;
  if (e instanceof ValueTooLongError) return 'too-long';
  if (e.name === 'SequelizeUniqueConstraintError') return 'unique';
  if (e.name === 'SequelizeForeignKeyConstraintError') return 'foreign-key';
  const code = e.parent?.code ?? e.original?.code ?? e.code;
  switch (code) {
    case 'ER_DUP_ENTRY':
      return 'unique';
    case 'ER_LOCK_DEADLOCK':
      return 'deadlock';
    case 'ER_LOCK_WAIT_TIMEOUT':
      return 'lock-timeout';
    case 'SQLITE_BUSY':
      return 'busy';
    case 'ER_NO_REFERENCED_ROW_2':
    case 'ER_ROW_IS_REFERENCED_2':
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return 'foreign-key';
    case 'SQLITE_CONSTRAINT':
      // node-sqlite3 gives every constraint the one code; the message tells a foreign key apart.
      return /FOREIGN KEY constraint failed/.test(e.parent?.message ?? e.message ?? '') ? 'foreign-key' : 'unique';
    case 'ER_DATA_TOO_LONG':
      return 'too-long';
    default:
      return null;
  }
}

/** True when a database error is a unique-constraint violation (SQLite or MySQL). */
export const isUniqueViolation = (err: unknown) => dbErrorKind(err) === 'unique';

/** True when a database error is a foreign-key violation (the parent row vanished meanwhile). */
export const isForeignKeyViolation = (err: unknown) => dbErrorKind(err) === 'foreign-key';

/** True when the transaction lost a lock race and may simply be run again. */
export const isRetryable = (err: unknown) => {
  const kind = dbErrorKind(err);
  return kind === 'deadlock' || kind === 'lock-timeout' || kind === 'busy';
};
