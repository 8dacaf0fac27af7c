import type { QueryInterface } from 'sequelize';

/**
 * Client scopes and protocol mappers: a protocol mapper name is unique per owner and protocol
 * (Keycloak's "Protocol mapper exists with same name"). A mapper has exactly one owner (a client or
 * a client scope, the other column NULL), so one unique index per owner column enforces it: NULLs
 * never collide. Scope mappings are looked up by owner through their primary key (owner_id, role_id).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('protocol_mapper', ['client_id', 'protocol', 'name'], { name: 'uq_protocol_mapper_client_name', unique: true });
  await qi.addIndex('protocol_mapper', ['client_scope_id', 'protocol', 'name'], { name: 'uq_protocol_mapper_scope_name', unique: true });
  await qi.addIndex('realm_default_client_scope', ['scope_id'], { name: 'ix_realm_default_client_scope_scope' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('realm_default_client_scope', 'ix_realm_default_client_scope_scope');
  await qi.removeIndex('protocol_mapper', 'uq_protocol_mapper_scope_name');
  await qi.removeIndex('protocol_mapper', 'uq_protocol_mapper_client_name');
}
