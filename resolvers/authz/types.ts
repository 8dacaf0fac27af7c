import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import type { AuthzTarget } from '../../src/services/authz/access';
import type { Rep } from '../types/common';
import { JSONObject } from '../types/scalars';

/**
 * Authorization services (issue 13 item 6): the values behind these types are the Keycloak
 * representations the services of src/services/authz return, as for every other family; the
 * resource server they belong to rides along under a symbol key (as the realm does, types/common.ts),
 * so nested fields call their REST twin's service function with the same target.
 */
export const TARGET = Symbol('authz-target');

export type InTarget<T extends object = Rep> = T & { [TARGET]: AuthzTarget };

/** Attaches the resource server to a representation (in place) and returns it. */
export function inTarget<T extends object>(t: AuthzTarget, rep: T): InTarget<T> {
  Object.defineProperty(rep, TARGET, { value: t, enumerable: false, configurable: true });
  return rep as InTarget<T>;
}

/** Attaches the resource server to each representation of a list (undefined, REST's 204, is an empty list). */
export const allInTarget = <T extends object>(t: AuthzTarget, reps: T[] | undefined): InTarget<T>[] =>
  (reps ?? []).map((r) => inTarget(t, r));

export const targetOf = (root: object): AuthzTarget => (root as InTarget)[TARGET];

/** Keycloak's DecisionStrategy (resource server, permissions, aggregates). */
export enum AuthzDecisionStrategy {
  UNANIMOUS = 'UNANIMOUS',
  AFFIRMATIVE = 'AFFIRMATIVE',
  CONSENSUS = 'CONSENSUS',
}
registerEnumType(AuthzDecisionStrategy, {
  name: 'AuthzDecisionStrategy',
  description: 'How the decisions of several policies or permissions combine (the REST value is the same name).',
  valuesConfig: {
    UNANIMOUS: { description: 'All must grant.' },
    AFFIRMATIVE: { description: 'One grant is enough.' },
    CONSENSUS: { description: 'More grants than denials.' },
  },
});

/** Keycloak's PolicyEnforcementMode of a resource server. */
export enum PolicyEnforcementMode {
  ENFORCING = 'ENFORCING',
  PERMISSIVE = 'PERMISSIVE',
  DISABLED = 'DISABLED',
}
registerEnumType(PolicyEnforcementMode, {
  name: 'PolicyEnforcementMode',
  description: 'How requests are enforced when no policy applies (the REST value is the same name).',
  valuesConfig: {
    ENFORCING: { description: 'Denied when no policy applies.' },
    PERMISSIVE: { description: 'Allowed when no policy applies.' },
    DISABLED: { description: 'Every request is allowed.' },
  },
});

/** Keycloak's Logic of a policy. */
export enum AuthzLogic {
  POSITIVE = 'POSITIVE',
  NEGATIVE = 'NEGATIVE',
}
registerEnumType(AuthzLogic, {
  name: 'AuthzLogic',
  description: "Whether a policy's decision is kept or inverted (the REST value is the same name).",
  valuesConfig: { POSITIVE: { description: 'Kept as it is.' }, NEGATIVE: { description: 'Inverted.' } },
});

/** A client's resource server (GET /clients/{id}/authz/resource-server). */
@ObjectType({ description: "A client's authorization settings: its resource server (Keycloak ResourceServerRepresentation)." })
export class ResourceServer {
  @Field(() => GraphQLID, { description: "The resource server's id: the client's UUID." }) id!: string;
  @Field(() => GraphQLID, { description: "The client's UUID." }) clientId!: string;
  @Field(() => GraphQLString, { description: "The client's clientId." }) name!: string;
  @Field(() => GraphQLBoolean, { description: 'Whether resources can be managed remotely through the protection API.' })
  allowRemoteResourceManagement!: boolean;
  @Field(() => PolicyEnforcementMode, { description: 'What happens to a request no policy applies to.' }) policyEnforcementMode!: string;
  @Field(() => AuthzDecisionStrategy, { description: 'How the permissions of a request combine.' }) decisionStrategy!: string;
}

/**
 * A protected resource (Keycloak ResourceRepresentation). `id` is Keycloak's `_id`, `iconUri` its
 * `icon_uri`; in the short lists (a scope's or a permission's resources) only `id` and `name` are set.
 */
@ObjectType({ description: 'A protected resource of a resource server (Keycloak ResourceRepresentation).' })
export class AuthzResource {
  @Field(() => GraphQLString, { description: 'Unique per resource server and owner.' }) name!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'A type grouping resources, e.g. urn:app:resources:account.' }) type?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'The name shown to users.' }) displayName?: string;
  @Field(() => [GraphQLString], { nullable: true, description: 'The URIs (or patterns) the resource protects.' }) uris?: string[];
  @Field(() => JSONObject, { nullable: true, description: 'The owner: `{id, name}` (the client, or a user).' }) owner?: Rep;
  @Field(() => GraphQLBoolean, { nullable: true, description: 'Whether the owner manages access to it (user-managed access).' })
  ownerManagedAccess?: boolean;
  @Field(() => JSONObject, { nullable: true, description: 'Attributes: name → list of values.' }) attributes?: Record<string, string[]>;
}

/** An authorization scope (Keycloak ScopeRepresentation). */
@ObjectType({ description: 'An authorization scope of a resource server (Keycloak ScopeRepresentation).' })
export class AuthzScope {
  @Field(() => GraphQLID, { description: "The scope's id." }) id!: string;
  @Field(() => GraphQLString, { description: 'Unique per resource server, e.g. view or urn:app:scopes:write.' }) name!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'The name shown to users.' }) displayName?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'An icon for the scope.' }) iconUri?: string;
}

/**
 * A policy or a permission (Keycloak PolicyRepresentation or a typed one): the generic form carries
 * `config`, a typed one its provider's fields (in `representation`). In the short lists (dependent and
 * associated policies, a resource's permissions) only `id`, `name`, `type` (and `description`) are set.
 */
@ObjectType({ description: 'A policy or permission of a resource server (Keycloak PolicyRepresentation, generic or typed).' })
export class AuthzPolicy {
  @Field(() => GraphQLID, { description: "The policy's id." }) id!: string;
  @Field(() => GraphQLString, { description: 'Unique per resource server.' }) name!: string;
  @Field(() => GraphQLString, {
    description: 'The provider: role, user, group, client, client-scope, time, regex, aggregate, js, resource, scope.',
  })
  type!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Free text.' }) description?: string;
  @Field(() => GraphQLString, { nullable: true, description: "The owning user of a user-managed policy; null for the server's own." })
  owner?: string;
  @Field(() => AuthzLogic, { nullable: true, description: 'Positive or negative (inverts the decision).' }) logic?: string;
  @Field(() => AuthzDecisionStrategy, { nullable: true, description: 'How the policies a permission or aggregate applies combine.' })
  decisionStrategy?: string;
  @Field(() => JSONObject, { nullable: true, description: "The provider's stored configuration (generic representation only)." })
  config?: Record<string, string>;
}

/** A policy provider (`GET .../policy/providers`). */
@ObjectType({ description: 'A policy provider offered for creation: `{type, name, group}`.' })
export class AuthzPolicyProvider {
  @Field(() => GraphQLString, { description: 'The provider type, as `type` of a policy and the typed endpoint segment.' }) type!: string;
  @Field(() => GraphQLString, { description: 'Its display name.' }) name!: string;
  @Field(() => GraphQLString, { description: 'Its group in the admin console (Identity Based, Others).' }) group!: string;
}
