import { GraphQLID, GraphQLString } from 'graphql';
import { Directive, Field, ObjectType } from 'type-graphql';
import { JSONObject, SafeInt } from '../types/scalars';

/**
 * A group, backed by the GroupRepresentation the groups service returns. Relations (parent,
 * subGroups, members, role mappings, effective roles) are added by resolvers/groups.ts.
 */
@Directive('@representation(name: "GroupRepresentation")')
@ObjectType({ description: 'A group (Keycloak GroupRepresentation).' })
export class Group {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => GraphQLString, { description: 'Path from the root, e.g. /parent/child (a / inside a name is ~/).' }) path!: string;
  @Field(() => GraphQLString, { nullable: true }) parentId?: string;
  @Field(() => JSONObject, { nullable: true }) attributes?: Record<string, string[]>;
  @Field(() => JSONObject, { nullable: true, description: "The caller's access map on this group." }) access?: Record<string, boolean>;
  @Field(() => SafeInt, { description: 'Number of direct subgroups.' }) subGroupCount!: number;
}
