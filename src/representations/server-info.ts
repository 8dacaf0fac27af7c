import type { clientInstallations, cryptoInfo, features, passwordPolicies, profileInfo, themes } from '../keycloak/server-info-catalogues';
import type { MapperType, protocolMapperTypes } from '../keycloak/mapper-types';
import type { ComponentTypeRep } from './component-type';
import type { Representation } from './schema';

/** serverinfo `systemInfo` (Keycloak's SystemInfoRepresentation, filled with the Node.js runtime's facts). */
export interface SystemInfoRep {
  version: string;
  serverTime: string;
  uptime: string;
  uptimeMillis: number;
  javaVersion: string;
  javaVendor: string;
  javaVm: string;
  javaVmVersion: string;
  javaRuntime: string;
  javaHome: string;
  osName: string;
  osArchitecture: string;
  osVersion: string;
  fileEncoding: string;
  userName?: string;
  userDir: string;
  userTimezone: string;
  userLocale: string;
}

/** serverinfo `memoryInfo` (Keycloak's MemoryInfoRepresentation, `Formated` spelled as Keycloak spells it). */
export interface MemoryInfoRep {
  total: number;
  totalFormated: string;
  used: number;
  usedFormated: string;
  free: number;
  freePercentage: number;
  freeFormated: string;
}

/** serverinfo `providers`: one SPI, its provider ids with their order. */
export interface SpiInfoRep {
  internal: boolean;
  providers: Record<string, { order: number }>;
}

/** A protocol mapper type listed as a component type (its properties are the mapper catalogue's, without `required`). */
export type MapperComponentTypeRep = Omit<ComponentTypeRep, 'properties'> & { properties: MapperType['properties'] };

type IdentityProviderEntry = { groupName: string; name: string; id: string };

/** Keycloak's ServerInfoRepresentation (GET /admin/serverinfo). */
export interface ServerInfoRep {
  systemInfo: SystemInfoRep;
  memoryInfo: MemoryInfoRep;
  cpuInfo: { processorCount: number };
  profileInfo: ReturnType<typeof profileInfo>;
  features: ReturnType<typeof features>;
  cryptoInfo: ReturnType<typeof cryptoInfo>;
  themes: ReturnType<typeof themes>;
  socialProviders: IdentityProviderEntry[];
  identityProviders: IdentityProviderEntry[];
  providers: Record<string, SpiInfoRep>;
  protocolMapperTypes: ReturnType<typeof protocolMapperTypes>;
  builtinProtocolMappers: Record<string, Representation<'ProtocolMapperRepresentation'>[]>;
  clientInstallations: ReturnType<typeof clientInstallations>;
  componentTypes: Record<string, Array<ComponentTypeRep | MapperComponentTypeRep>>;
  passwordPolicies: ReturnType<typeof passwordPolicies>;
  enums: { eventType: string[]; operationType: string[]; resourceType: string[] };
}
