import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  type GraphQLType,
  defaultFieldResolver,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { HttpError } from '../src/core/errors';
import { mapDbError } from '../src/core/db-errors';
import { type UserErrorValue, conflictField, userErrorsOf } from './types/user-error';

/**
 * Statuses that mean "the input is wrong": reported as `userErrors` in the payload, with nothing
 * written (the service's transaction rolled back). Any other failure (unauthenticated, forbidden, the
 * target not found, a server error) stays a GraphQL error with its HTTP status.
 */
const INPUT_STATUSES = new Set([400, 409, 413, 415, 422]);

/** Arguments that carry the object being written: errors about its fields are reported under them. */
const INPUT_ARGUMENTS = ['input', 'rep', 'representation'];

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
/** English plural of a type name: `roles`, `ldapServerCapabilities`. */
const plural = (s: string) => (/[^aeiou]y$/.test(s) ? `${s.slice(0, -1)}ies` : `${s}s`);
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The payload field that carries a mutation's result: the object's type name (`user`, `clientScope`),
 * its plural for a list (`roles`), `ok` for a yes/no action, `id` for a new id, `result` otherwise.
 */
export function resultFieldName(type: GraphQLOutputType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  const named = getNamedType(inner);
  if (isObjectType(named)) return isListType(inner) ? plural(lowerFirst(named.name)) : lowerFirst(named.name);
  if (named === GraphQLBoolean) return 'ok';
  if (named.name === 'ID') return 'id';
  return 'result';
}

/** Whether a mutation already answers with a payload of its own (bulk writes). */
const hasOwnPayload = (type: GraphQLOutputType) => {
  const named = getNamedType(type);
  return isObjectType(named) && named.name.endsWith('Payload');
};

/** The user errors of a failed mutation, or undefined when the failure is not about its input. */
function userErrorsFor(thrown: unknown, args: Record<string, unknown>): UserErrorValue[] | undefined {
  const err = mapDbError(thrown);
  if (!(err instanceof HttpError) || !INPUT_STATUSES.has(err.status)) return undefined;
  const argument = INPUT_ARGUMENTS.find((name) => name in args);
  return userErrorsOf(err, argument ? [argument] : null, conflictField(err));
}

function wrap(
  mutation: string,
  field: GraphQLFieldConfig<unknown, unknown>,
  userError: GraphQLObjectType,
): GraphQLFieldConfig<unknown, unknown> {
  const resultField = resultFieldName(field.type);
  const resultType: GraphQLType = isNonNullType(field.type) ? field.type.ofType : field.type;
  const payloadType = new GraphQLObjectType({
    name: `${upperFirst(mutation)}Payload`,
    description: `The outcome of \`${mutation}\`: its result, or the problems with its input (then nothing was written).`,
    fields: {
      [resultField]: {
        type: resultType as GraphQLOutputType,
        description: 'The result; null when `userErrors` is not empty.',
      },
      userErrors: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(userError))),
        description: 'Problems with the input, each with the path of the input field at fault; empty on success.',
      },
    },
  });
  const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
  return {
    ...field,
    type: new GraphQLNonNull(payloadType),
    resolve: async (source, args, context, info) => {
      try {
        return { [resultField]: await resolve(source, args, context, info), userErrors: [] };
      } catch (err) {
        const userErrors = userErrorsFor(err, args);
        if (!userErrors) throw err;
        return { [resultField]: null, userErrors };
      }
    },
  };
}

/**
 * Every mutation answers with a payload object, `<Mutation>Payload { <result>, userErrors }`, as
 * GitHub's and Shopify's APIs do: a validation failure is data the caller shows next to the input,
 * not a failed request. The resolvers stay plain (they return the object or throw the service's
 * typed error); this transform wraps them once for the whole schema.
 */
export function mutationPayloads(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  const userError = schema.getType('UserError');
  if (!mutation || !isObjectType(userError)) return schema;
  const config = mutation.toConfig();
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, field] of Object.entries(config.fields)) {
    fields[name] = hasOwnPayload(field.type) ? field : wrap(name, field, userError);
  }
  const wrapped = new GraphQLObjectType({ ...config, fields });
  const schemaConfig = schema.toConfig();
  return new GraphQLSchema({
    ...schemaConfig,
    mutation: wrapped,
    types: schemaConfig.types.filter((t) => t !== mutation),
  });
}
