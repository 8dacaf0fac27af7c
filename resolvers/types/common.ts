import type { RealmModel } from '../../src/db/models/realm';

/**
 * Values behind the GraphQL object types are the Keycloak representations the services return
 * (plain JSON objects), so a GraphQL read and the REST GET of the same object agree field for
 * field. Nested fields need the realm the object lives in: it rides along under a symbol key, which
 * neither GraphQL nor JSON serialisation sees.
 */
export const REALM = Symbol('realm');

export type Rep = Record<string, unknown>;
export type InRealm<T extends object = Rep> = T & { [REALM]: RealmModel };

/** Attaches the realm to a representation (in place) and returns it. */
export function inRealm<T extends object>(realm: RealmModel, rep: T): InRealm<T> {
  Object.defineProperty(rep, REALM, { value: realm, enumerable: false, configurable: true });
  return rep as InRealm<T>;
}

/** Attaches the realm to each representation of a list. */
export const allInRealm = <T extends object>(realm: RealmModel, reps: T[]): InRealm<T>[] => reps.map((r) => inRealm(realm, r));

export const realmOf = (root: object): RealmModel => (root as InRealm)[REALM];

/** A GraphQL input object as the plain JSON body the REST front would hand to the same service. */
export function plain<T = Rep>(input: unknown): T {
  return JSON.parse(JSON.stringify(input ?? null)) as T;
}
