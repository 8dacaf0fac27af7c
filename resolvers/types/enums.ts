import { registerEnumType } from 'type-graphql';
import { EVENT_TYPES, OPERATION_TYPES, RESOURCE_TYPES } from '../../src/keycloak/event-types';

/**
 * Enums of the gateway for Keycloak's closed sets, built from the catalogues so they stay in step
 * with what the services accept. A value's GraphQL name is Keycloak's own constant.
 */
const enumOf = (values: Iterable<string>): Record<string, string> => Object.fromEntries([...values].map((v) => [v, v]));

export const EventType = enumOf(EVENT_TYPES);
registerEnumType(EventType, { name: 'EventType', description: 'Type of a user (login) event, as Keycloak names it.' });

export const OperationType = enumOf(OPERATION_TYPES);
registerEnumType(OperationType, { name: 'OperationType', description: 'What an admin event did.' });

export const ResourceType = enumOf(RESOURCE_TYPES);
registerEnumType(ResourceType, { name: 'ResourceType', description: 'What kind of object an admin event changed.' });

export enum SortDirection {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(SortDirection, { name: 'SortDirection', description: 'Ascending or descending.' });
