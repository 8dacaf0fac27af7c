import { registerEnumType } from 'type-graphql';
import {
  EVENT_TYPES,
  EVENT_TYPE_DESCRIPTIONS,
  OPERATION_TYPES,
  OPERATION_TYPE_DESCRIPTIONS,
  RESOURCE_TYPES,
  RESOURCE_TYPE_DESCRIPTIONS,
} from '../../src/keycloak/event-types';

/**
 * Enums of the gateway for Keycloak's closed sets, built from the catalogues so they stay in step
 * with what the services accept. A value's GraphQL name is Keycloak's own constant; its description
 * comes from the catalogue (typed there, so a value without one does not compile).
 */
const enumOf = (values: Iterable<string>): Record<string, string> => Object.fromEntries([...values].map((v) => [v, v]));

/** type-graphql's per-value configuration: each value with its description. */
const described = (values: Iterable<string>, descriptions: Readonly<Record<string, string>>) =>
  Object.fromEntries([...values].map((v) => [v, { description: descriptions[v] }]));

export const EventType = enumOf(EVENT_TYPES);
registerEnumType(EventType, {
  name: 'EventType',
  description: 'Type of a user (login) event, as Keycloak names it.',
  valuesConfig: described(EVENT_TYPES, EVENT_TYPE_DESCRIPTIONS),
});

export const OperationType = enumOf(OPERATION_TYPES);
registerEnumType(OperationType, {
  name: 'OperationType',
  description: 'What an admin event did.',
  valuesConfig: described(OPERATION_TYPES, OPERATION_TYPE_DESCRIPTIONS),
});

export const ResourceType = enumOf(RESOURCE_TYPES);
registerEnumType(ResourceType, {
  name: 'ResourceType',
  description: 'What kind of object an admin event changed.',
  valuesConfig: described(RESOURCE_TYPES, RESOURCE_TYPE_DESCRIPTIONS),
});

export enum SortDirection {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(SortDirection, {
  name: 'SortDirection',
  description: 'Ascending or descending.',
  valuesConfig: {
    ASC: { description: 'Ascending: oldest or smallest first.' },
    DESC: { description: 'Descending: newest or largest first.' },
  },
});
