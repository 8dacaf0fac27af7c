import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, idColumn, ref, str } from './common';

/**
 * An organization of a realm (Keycloak 26's OrganizationEntity, migration 0020). Its domains,
 * attributes and members are rows of their own tables (ADR 30).
 */
export class OrganizationModel extends Model {
  declare id: string;
  declare realmId: string;
  declare name: string;
  declare alias: string;
  declare enabled: boolean;
  declare description: string | null;
  declare redirectUrl: string | null;
}

/** An internet domain of an organization; a domain names at most one organization of the realm. */
export class OrganizationDomainModel extends Model {
  declare id: string;
  declare realmId: string;
  declare organizationId: string;
  declare name: string;
  declare verified: boolean;
}

/** One value of an attribute of an organization. */
export class OrganizationAttributeModel extends Model {
  declare id: string;
  declare organizationId: string;
  declare name: string;
  declare value: string | null;
}

/** A user's membership of an organization: MANAGED (created through the organization's broker) or UNMANAGED. */
export class OrganizationMemberModel extends Model {
  declare organizationId: string;
  declare userId: string;
  declare membershipType: 'MANAGED' | 'UNMANAGED';
}

/** An invitation mailed to join an organization (migration 0027); its id is the link's `jti`. Times in epoch seconds. */
export class OrganizationInvitationModel extends Model {
  declare id: string;
  declare organizationId: string;
  declare email: string;
  declare firstName: string | null;
  declare lastName: string | null;
  declare sentDate: number;
  declare expiresAt: number;
}

const common = { underscored: true, timestamps: false } as const;

export function initOrganizations(sequelize: Sequelize) {
  OrganizationModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      name: str(255, false),
      alias: str(255, false),
      enabled: bool(true),
      description: str(4000),
      redirectUrl: str(2048),
    },
    { sequelize, tableName: 'organization', ...common },
  );
  OrganizationDomainModel.init(
    { id: idColumn(), realmId: ref(), organizationId: ref(), name: str(255, false), verified: bool() },
    { sequelize, tableName: 'organization_domain', ...common },
  );
  OrganizationAttributeModel.init(
    { id: idColumn(), organizationId: ref(), name: str(255, false), value: str(255) },
    { sequelize, tableName: 'organization_attribute', ...common },
  );
  OrganizationMemberModel.init(
    {
      organizationId: { ...ref(), primaryKey: true },
      userId: { ...ref(), primaryKey: true },
      membershipType: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'UNMANAGED' },
    },
    { sequelize, tableName: 'organization_member', ...common },
  );
  OrganizationInvitationModel.init(
    {
      id: idColumn(),
      organizationId: ref(),
      email: str(255, false),
      firstName: str(255),
      lastName: str(255),
      sentDate: { type: DataTypes.BIGINT, allowNull: false, get: epoch('sentDate') },
      expiresAt: { type: DataTypes.BIGINT, allowNull: false, get: epoch('expiresAt') },
    },
    { sequelize, tableName: 'organization_invitation', ...common },
  );
}

/** BIGINT columns come back as strings from mysql2: read them as numbers. */
function epoch(field: string) {
  return function (this: Model) {
    const v = this.getDataValue(field);
    return v == null ? v : Number(v);
  };
}
