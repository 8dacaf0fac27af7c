import { Model } from 'sequelize';

/**
 * Reading an attribute of a Sequelize instance (`user.username`) calls `Model#get(key)`, which starts
 * with `options = options || {}`: one object per property read. Sorting or mapping hundreds of
 * instances made that a large share of a GraphQL page's garbage (issue 12: about 1 MB of a 100-user
 * page with groups and effective roles). Here a plain read (a string key, no options) takes the same
 * two branches Sequelize takes for it, the attribute's custom getter or its data value, without the
 * allocation; every other call is Sequelize's own.
 */
export function fastAttributeReads(): void {
  const proto = Model.prototype as unknown as {
    get(key?: unknown, options?: unknown): unknown;
    __fastGet?: boolean;
  };
  if (proto.__fastGet) return;
  const get = proto.get;
  const own = Object.prototype.hasOwnProperty;
  proto.get = function (
    this: { _customGetters: Record<string, (k: string, o: object) => unknown>; dataValues: Record<string, unknown> },
    key?: unknown,
    options?: unknown,
  ) {
    if (options === undefined && typeof key === 'string' && key) {
      if (own.call(this._customGetters, key)) return this._customGetters[key].call(this, key, {});
      return this.dataValues[key];
    }
    return get.call(this, key, options);
  };
  proto.__fastGet = true;
}
