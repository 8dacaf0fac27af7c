import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Invitations to an organization (Keycloak 26's OrganizationInvitationEntity, table ORG_INVITATION):
 * one row per invitation mailed by `members/invite-user` or `invite-existing-user`, its id the `jti`
 * of the link's token. At most one invitation per organization and e-mail (unique index: a second
 * pending one is a 409, an expired one is replaced). Times are epoch seconds (`sent_date` as the
 * representation's `sentDate`, `expires_at` indexed for the status filter). The row goes with its
 * organization; an accepted invitation is deleted.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('organization_invitation', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    organization_id: {
      type: DataTypes.STRING(36),
      allowNull: false,
      references: { model: 'organization', key: 'id' },
      onDelete: 'CASCADE',
    },
    email: { type: DataTypes.STRING(255), allowNull: false },
    first_name: { type: DataTypes.STRING(255), allowNull: true },
    last_name: { type: DataTypes.STRING(255), allowNull: true },
    sent_date: { type: DataTypes.BIGINT, allowNull: false },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('organization_invitation', ['organization_id', 'email'], { name: 'uq_organization_invitation_email', unique: true });
  await qi.addIndex('organization_invitation', ['organization_id', 'expires_at'], { name: 'ix_organization_invitation_expiry' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('organization_invitation');
}
