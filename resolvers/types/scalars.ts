import { GraphQLJSON, GraphQLJSONObject, GraphQLSafeInt } from 'graphql-scalars';

/**
 * Scalars of the gateway. Keycloak's free-form maps (attributes, clientRoles, config) are
 * `JSONObject`; values of unknown shape are `JSON`; Keycloak's `long` fields (timestamps) are
 * `SafeInt` because GraphQL's `Int` is 32-bit.
 */
export { GraphQLJSON as JSON, GraphQLJSONObject as JSONObject, GraphQLSafeInt as SafeInt };
