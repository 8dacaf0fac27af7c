import { GraphQLString } from 'graphql';
import { Field, ObjectType } from 'type-graphql';
import type { HttpError } from '../../src/core/errors';
import { validationMessage } from '../../src/keycloak/validation-messages';
import { codeOf } from '../errors';

/**
 * `UserError`: an error a mutation reports in its payload instead of failing, for the caller to show
 * next to the input that caused it (Shopify's and GitHub's `userErrors`). Built from the service's
 * typed error, so it says what the REST front would say, in words.
 */
@ObjectType({
  description: 'A problem with the input of a mutation, reported in its payload: where, a stable code, and what is wrong in words.',
})
export class UserError {
  @Field(() => [GraphQLString], {
    nullable: true,
    description:
      'Path to the input the error is about, from the mutation\'s argument: `["users", "3", "email"]`, `["userIds", "7"]`. Null when it is about no input in particular.',
  })
  field?: string[] | null;

  @Field(() => GraphQLString, {
    description:
      'Stable code: the Keycloak message key of a validation error (`error-invalid-email`, `error-user-attribute-required`, ...), otherwise the status name (`CONFLICT`, `NOT_FOUND`, `FORBIDDEN`, `BAD_REQUEST`, ...).',
  })
  code!: string;

  @Field(() => GraphQLString, { description: "What is wrong, in words (Keycloak's error message where it has one)." })
  message!: string;
}

/**
 * The input field a 409 is about, from Keycloak's message (`User exists with same username`,
 * `Role with name x already exists`, `Client x already exists`, ...); undefined when it names none.
 */
export function conflictField(err: HttpError): string[] | undefined {
  if (err.status !== 409) return undefined;
  if (/^Realm (with same name exists|.* already exists)$/.test(err.message)) return ['realm'];
  if (/^(New )?[Ff]low alias name already exists$|^Flow .* already exists$/.test(err.message)) return ['alias'];
  const m = /same (username|email|name|alias|clientId)\b/i.exec(err.message);
  if (m) return [m[1] === 'clientid' ? 'clientId' : m[1]];
  if (/^Role with name .* already exists$|group named .* already exists|^Client Scope .* already exists$/i.test(err.message))
    return ['name'];
  if (/^Client .* already exists$/.test(err.message)) return ['clientId'];
  if (/^Identity Provider .* already exists$/i.test(err.message)) return ['alias'];
  return undefined;
}

/** The plain value behind a `UserError`. */
export interface UserErrorValue {
  field: string[] | null;
  code: string;
  message: string;
}

/** Attributes stored on the user row rather than under `attributes` in a user representation. */
const ROOT_ATTRIBUTES = new Set(['username', 'email', 'firstName', 'lastName']);

interface ProfileError {
  field: string;
  errorMessage: string;
  params?: unknown[];
}

const isProfileError = (v: unknown): v is ProfileError =>
  !!v && typeof v === 'object' && typeof (v as ProfileError).field === 'string' && typeof (v as ProfileError).errorMessage === 'string';

/** Where a user-profile attribute sits in a user input. */
const attributePath = (name: string) => (ROOT_ATTRIBUTES.has(name) ? [name] : ['attributes', name]);

/**
 * The user errors a service error means. `path` is the input the error is about (an argument, or an
 * item of a list argument); a user-profile validation error (one, or several as `{"errors": [...]}`)
 * becomes one error per attribute under that path, with Keycloak's message key as its code.
 * `field` names the input field of any other error, when the caller knows it.
 */
export function userErrorsOf(err: HttpError, path: string[] | null, field?: string[]): UserErrorValue[] {
  const body = err.body;
  const profile = Array.isArray(body.errors) ? body.errors.filter(isProfileError) : isProfileError(body) ? [body] : [];
  if (err.status === 400 && profile.length) {
    return profile.map((e) => ({
      field: [...(path ?? []), ...attributePath(e.field)],
      code: e.errorMessage,
      message: validationMessage(e.errorMessage, e.params ?? [e.field]),
    }));
  }
  const at = path || field ? [...(path ?? []), ...(field ?? [])] : null;
  return [{ field: at, code: codeOf(err.status), message: err.message }];
}
