import type { QueryInterface } from 'sequelize';

/** Clients: deleting a client removes its user sessions, looked up by client. */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('user_session', ['client_id'], { name: 'ix_user_session_client' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('user_session', 'ix_user_session_client');
}
