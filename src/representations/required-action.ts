import type { RequiredActionModel } from '../db/models/component';
import type { Representation } from './schema';

/** Keycloak's RequiredActionProviderRepresentation (admin API and realm export alike). */
export type RequiredActionRep = Representation<'RequiredActionProviderRepresentation'>;

/** RequiredActionProviderRepresentation of a registered required action. */
export const toRequiredActionRepresentation = (a: RequiredActionModel): RequiredActionRep => ({
  alias: a.alias,
  name: a.name,
  providerId: a.providerId,
  enabled: a.enabled,
  defaultAction: a.defaultAction,
  priority: a.priority,
  config: a.config ?? {},
});

/** Keycloak's order of required actions: priority, then name (case-insensitive). */
export const requiredActionOrder = (a: RequiredActionModel, b: RequiredActionModel) =>
  a.priority - b.priority || a.name.toLowerCase().localeCompare(b.name.toLowerCase());
