import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Organizations (issue 15, Keycloak 26): an organization of a realm (name and alias each unique per
 * realm), its internet domains (a domain names at most one organization of the realm: the unique
 * index is on realm and name), its attributes (rows, so `q=key:value` is an indexed lookup) and its
 * members. Keycloak keeps members and attributes in a hidden group of the organization; idserver
 * keeps them in their own tables (ADR 30). Everything cascades from the realm, the organization and
 * the user.
 */
const parent = (model: string) => ({
  type: DataTypes.STRING(36),
  allowNull: false,
  references: { model, key: 'id' },
  onDelete: 'CASCADE',
});

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('organization', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: parent('realm'),
    name: { type: DataTypes.STRING(255), allowNull: false },
    alias: { type: DataTypes.STRING(255), allowNull: false },
    enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    description: { type: DataTypes.STRING(4000), allowNull: true },
    redirect_url: { type: DataTypes.STRING(2048), allowNull: true },
  });
  await qi.addIndex('organization', ['realm_id', 'name'], { name: 'uq_organization_name', unique: true });
  await qi.addIndex('organization', ['realm_id', 'alias'], { name: 'uq_organization_alias', unique: true });

  await qi.createTable('organization_domain', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: parent('realm'),
    organization_id: parent('organization'),
    name: { type: DataTypes.STRING(255), allowNull: false },
    verified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
  });
  await qi.addIndex('organization_domain', ['realm_id', 'name'], { name: 'uq_organization_domain', unique: true });
  await qi.addIndex('organization_domain', ['organization_id'], { name: 'ix_organization_domain_org' });

  await qi.createTable('organization_attribute', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    organization_id: parent('organization'),
    name: { type: DataTypes.STRING(255), allowNull: false },
    value: { type: DataTypes.STRING(255), allowNull: true },
  });
  await qi.addIndex('organization_attribute', ['organization_id'], { name: 'ix_organization_attribute_org' });
  await qi.addIndex('organization_attribute', ['name', 'value'], { name: 'ix_organization_attribute_name_value' });

  await qi.createTable('organization_member', {
    organization_id: { ...parent('organization'), primaryKey: true },
    user_id: { ...parent('user_entity'), primaryKey: true },
    membership_type: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'UNMANAGED' },
  });
  await qi.addIndex('organization_member', ['user_id'], { name: 'ix_organization_member_user' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('organization_member');
  await qi.dropTable('organization_attribute');
  await qi.dropTable('organization_domain');
  await qi.dropTable('organization');
}
