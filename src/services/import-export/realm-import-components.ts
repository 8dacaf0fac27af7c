import { KEY_PROVIDER_TYPE } from '../../auth/keys';
import type { RealmModel } from '../../db/models/realm';
import { createComponent, deleteComponent } from '../components/components';
import type { ComponentInput } from '../components/input';
import { SECRET_MASK } from '../../representations/component';
import type { RequestContext } from '../../core/context';
import { takenIds } from './import-ids';
import type { ComponentExportRep, RealmRepresentation } from '../../representations/realm';

/**
 * Components of a full realm import (ComponentExportRepresentation grouped by provider type, with
 * `subComponents`), created through the components service so each provider validates its config
 * and key providers get or check their key material (config reference §6). Masked values
 * (`**********`, as an export writes secrets and generated keys) count as absent, so a generated
 * provider makes new keys. Key providers given here are the realm's only keys (the defaults were not
 * created); a token issued afterwards is signed with the imported key.
 */
type ByType = Record<string, ComponentExportRep[]>;
type Config = NonNullable<ComponentExportRep['config']>;
const isMap = (v: unknown): v is object => !!v && typeof v === 'object' && !Array.isArray(v);
/** The object entries of a list (an import body is not checked entry by entry). */
const list = (v: unknown): ComponentExportRep[] =>
  Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object' && !Array.isArray(x)) as ComponentExportRep[]) : [];
const byType = (v: unknown): ByType => (isMap(v) ? (v as ByType) : {});
const configMap = (v: unknown): Config => (isMap(v) ? (v as Config) : {});
const text = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));

/** Config values as lists of strings, masked values left out. */
function configOf(v: unknown): ComponentInput['config'] {
  const out: Record<string, string[]> = {};
  for (const [k, values] of Object.entries(configMap(v))) {
    const all = (Array.isArray(values) ? values : [values]).filter((x) => x !== null && x !== undefined).map(String);
    const kept = all.filter((x) => x !== SECRET_MASK);
    if (kept.length) out[k] = kept;
  }
  return out;
}

/** Every id of the tree, to find those another realm already uses. */
function allIds(components: ByType): unknown[] {
  return Object.values(components).flatMap((reps) => list(reps).flatMap((c) => [c.id, ...allIds(byType(c.subComponents))]));
}

async function importLevel(
  ctx: RequestContext,
  realm: RealmModel,
  components: ByType,
  parentId: string,
  taken: Set<string>,
): Promise<void> {
  for (const [providerType, reps] of Object.entries(components)) {
    for (const c of list(reps)) {
      const id = typeof c.id === 'string' && c.id && !taken.has(c.id) ? c.id : undefined;
      const newId = await createComponent(ctx, realm, {
        id,
        name: text(c.name),
        parentId,
        providerId: text(c.providerId),
        providerType,
        subType: text(c.subType),
        config: configOf(c.config),
      });
      const subs = byType(c.subComponents);
      if (!Object.values(subs).some((s) => list(s).length)) continue;
      // The representation's sub-components replace those the provider creates itself (LDAP default mappers).
      const made = await ctx.db.models.Component.findAll({ where: { realmId: realm.id, parentId: newId }, attributes: ['id'] });
      for (const m of made) await deleteComponent(ctx, realm, m.id);
      await importLevel(ctx, realm, subs, newId, taken);
    }
  }
}

/** `components` of a realm representation: top-level ones under the realm, sub-components under their parent. */
export async function importComponents(ctx: RequestContext, realm: RealmModel, rep: RealmRepresentation): Promise<void> {
  const components = byType(rep.components);
  if (!Object.keys(components).length) return;
  const taken = await takenIds(ctx, 'Component', allIds(components));
  await importLevel(ctx, realm, components, realm.id, taken);
  await addFallbackKeys(ctx, realm, list(components[KEY_PROVIDER_TYPE]));
}

/** Providers whose keys sign with the algorithm (absent `algorithm` is the provider's default). */
const SIGNERS: Record<string, string[]> = { RS256: ['rsa', 'rsa-generated', 'java-keystore'], HS512: ['hmac-generated'] };

/**
 * Key providers given without one for RS256 or HS512 (what tokens need): a generated provider
 * `fallback-<alg>` with priority -100 is added, as Keycloak's key manager adds one when a realm
 * has no active key for an algorithm.
 */
async function addFallbackKeys(ctx: RequestContext, realm: RealmModel, keyProviders: ComponentExportRep[]): Promise<void> {
  if (!keyProviders.length) return;
  for (const [alg, providers] of Object.entries(SIGNERS)) {
    const covered = keyProviders.some((k) => {
      const algorithm = configMap(k.config).algorithm;
      const value = Array.isArray(algorithm) ? algorithm[0] : algorithm;
      return providers.includes(String(k.providerId)) && (value === undefined || value === alg);
    });
    if (covered) continue;
    await createComponent(ctx, realm, {
      name: `fallback-${alg}`,
      parentId: realm.id,
      providerId: alg === 'RS256' ? 'rsa-generated' : 'hmac-generated',
      providerType: KEY_PROVIDER_TYPE,
      config: { priority: ['-100'], algorithm: [alg] },
    });
  }
}
