import { createReadStream } from 'node:fs';

/**
 * Reads a Keycloak export file (a realm, an array of realms, or a `{realm, users}` user file) without
 * holding its users in memory: one pass gives each realm object with its `users` arrays emptied (the
 * small part), another yields the users one by one. Keycloak writes `users` before `clients`, so a
 * realm cannot be created from a single forward pass; two passes over a file cost little.
 *
 * A tokenizer of JSON's structure only (strings, brackets, colons, commas): each user's text is
 * handed to JSON.parse, which still checks it fully.
 */

interface Handlers {
  /** Text outside the `users` arrays (realm skeletons), chunk by chunk. */
  skeleton?: (text: string) => void;
  /** One element of a `users` array of realm `realmIndex`, as text. */
  user?: (text: string, realmIndex: number) => void;
}

class Splitter {
  private depth = 0;
  private realmDepth = 0; // 1: the file is a realm object, 2: an array of realm objects
  private realmIndex = -1;
  private inString = false;
  private escaped = false;
  private stringStart = -1;
  private stringText = '';
  private lastString: string | null = null;
  private key: string | null = null;
  private expectValue = false;
  private usersDepth = 0; // depth inside the users array, 0 when outside
  private element = '';
  private elementStart = -1;

  constructor(private readonly on: Handlers) {}

  push(chunk: string): void {
    // Start of the skeleton text not yet emitted (none while inside a users array).
    let copyFrom = this.usersDepth ? chunk.length : 0;
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.stringStart >= 0) {
            this.lastString = this.stringText + chunk.slice(this.stringStart, i);
            this.stringStart = -1;
          }
        }
        continue;
      }
      if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
      if (this.usersDepth) {
        // Inside a users array: elements are cut out, nothing goes to the skeleton.
        if (ch === '"') this.inString = true;
        else if (ch === '{' || ch === '[') {
          if (this.depth === this.usersDepth) this.elementStart = i;
          this.depth++;
        } else if (ch === '}' || ch === ']') {
          if (this.depth === this.usersDepth) {
            // The users array closes: the skeleton goes on from its closing bracket.
            this.usersDepth = 0;
            this.depth--;
            copyFrom = i;
            continue;
          }
          this.depth--;
          if (this.depth === this.usersDepth) {
            const text = this.element + chunk.slice(this.elementStart, i + 1);
            this.element = '';
            this.elementStart = -1;
            this.on.user?.(text, this.realmIndex);
          }
        }
        continue;
      }
      if (ch === '"') {
        this.inString = true;
        if (this.depth === this.realmDepth) {
          this.stringStart = i + 1;
          this.stringText = '';
        }
        continue;
      }
      if (this.depth === 0 && !this.realmDepth) this.realmDepth = ch === '[' ? 2 : 1;
      if (this.depth === this.realmDepth) {
        if (ch === ':') {
          this.key = this.lastString;
          this.expectValue = true;
          continue;
        }
        if (ch === ',') {
          this.key = null;
          this.expectValue = false;
          continue;
        }
        if (this.expectValue && ch === '[' && this.key === 'users') {
          this.depth++;
          this.usersDepth = this.depth;
          this.on.skeleton?.(chunk.slice(copyFrom, i + 1));
          copyFrom = chunk.length; // nothing more until the array closes
          this.expectValue = false;
          continue;
        }
        this.expectValue = false;
      }
      if (ch === '{' || ch === '[') {
        this.depth++;
        if (ch === '{' && this.depth === this.realmDepth) this.realmIndex++;
      } else if (ch === '}' || ch === ']') this.depth--;
    }
    if (this.inString && this.stringStart >= 0) {
      this.stringText += chunk.slice(this.stringStart);
      this.stringStart = 0;
    }
    if (this.usersDepth && this.elementStart >= 0) {
      this.element += chunk.slice(this.elementStart);
      this.elementStart = 0;
    }
    if (!this.usersDepth && copyFrom < chunk.length) this.on.skeleton?.(chunk.slice(copyFrom));
  }
}

async function scan(path: string, on: Handlers): Promise<void> {
  const splitter = new Splitter(on);
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) splitter.push(chunk as string);
}

/** The realm objects of a file with their `users` arrays emptied (an object file gives one). */
export async function readRealmSkeletons(path: string): Promise<Array<Record<string, unknown>>> {
  const parts: string[] = [];
  await scan(path, { skeleton: (t) => parts.push(t) });
  let parsed: unknown;
  try {
    parsed = JSON.parse(parts.join(''));
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new Error(`${path}: entry ${i} is not a realm object`);
    return r as Record<string, unknown>;
  });
}

/**
 * The users of the file's realm `realmIndex` in batches of at most `size`, parsed one at a time as the
 * file is read: memory holds one read chunk and one batch.
 */
export async function* readUsers(path: string, realmIndex: number, size: number): AsyncGenerator<Array<Record<string, unknown>>> {
  let batch: Array<Record<string, unknown>> = [];
  const ready: Array<Array<Record<string, unknown>>> = [];
  const splitter = new Splitter({
    user: (text, index) => {
      if (index !== realmIndex) return;
      let user: unknown;
      try {
        user = JSON.parse(text);
      } catch (e) {
        throw new Error(`${path}: a user is not valid JSON (${(e as Error).message})`);
      }
      if (user && typeof user === 'object' && !Array.isArray(user)) batch.push(user as Record<string, unknown>);
      if (batch.length >= size) {
        ready.push(batch);
        batch = [];
      }
    },
  });
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
    splitter.push(chunk as string);
    while (ready.length) yield ready.shift() as Array<Record<string, unknown>>;
  }
  if (batch.length) yield batch;
}
