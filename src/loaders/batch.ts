import DataLoader from 'dataloader';

/**
 * The per-request batch behind a service read: the calls one tick of a request makes (a GraphQL
 * list of N parents asks for a field N times at once) become one call of `fn` with every key, so
 * N parents cost the statements of one. `fn` returns one value (or an Error) per key, in key order.
 *
 * Unlike the loaders of `createLoaders`, nothing is cached: a call after a write reads the
 * database again, exactly as the unbatched read did, so no invalidation is needed. Everything `fn`
 * depends on besides the keys (the realm, a flag) must be part of `name`: the loader is made once
 * per request and name, with the `fn` of the first call.
 */
export function batchLoad<K, V>(
  memo: Map<string, unknown>,
  name: string,
  fn: (keys: readonly K[]) => Promise<ReadonlyArray<V | Error>>,
  key: K,
): Promise<V> {
  const slot = `batch:${name}`;
  let loader = memo.get(slot) as DataLoader<K, V, K> | undefined;
  if (!loader) {
    loader = new DataLoader<K, V, K>(fn, { cache: false });
    memo.set(slot, loader);
  }
  return loader.load(key);
}
