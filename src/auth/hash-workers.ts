import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Password hashes run on worker threads of their own, one per core, each lowered to the lowest CPU
 * priority (nice 19) for its own thread (issue 12: other requests' p99 must not rise much while logins
 * saturate the cores). The event loop stays at the process's priority, so while hashes keep every core
 * busy the scheduler still runs request handling first and the hashes take the CPU that is left: the
 * cores stay saturated and a burst of logins no longer queues everything else behind whole hashes.
 * libuv's thread pool (which argon2's async binding and node's pbkdf2 used) is left to the SQLite
 * driver and file I/O.
 *
 * Each worker computes synchronously (`@node-rs/argon2`'s hashRawSync, node's pbkdf2Sync), so the hash
 * runs on the lowered thread itself. A job is a raw hash: the caller builds and checks Keycloak's
 * credential layout (passwords.ts). Workers start on first use and do not keep the process alive.
 */
export type HashJob =
  | {
      kind: 'argon2';
      password: string;
      salt: Buffer;
      type: 'id' | 'i' | 'd';
      version: 0x10 | 0x13;
      hashLength: number;
      memory: number;
      iterations: number;
      parallelism: number;
    }
  | { kind: 'pbkdf2'; password: string; salt: Buffer; iterations: number; keyLength: number; digest: string };

/** One worker per core: each hash keeps one core busy, so more would only make them wait in turn. */
export const HASH_WORKERS = Math.max(1, availableParallelism());

// The worker's source (plain JavaScript: it runs the same under ts-node, jest and the compiled server).
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pbkdf2Sync } = require('node:crypto');
const { setPriority } = require('node:os');
const { hashRawSync, Algorithm, Version } = require(workerData.argon2);
try { setPriority(19); } catch {}
const ALGORITHM = { id: Algorithm.Argon2id, i: Algorithm.Argon2i, d: Algorithm.Argon2d };
parentPort.on('message', ({ id, job }) => {
  try {
    const salt = Buffer.from(job.salt);
    const out = job.kind === 'argon2'
      ? hashRawSync(job.password, { salt, algorithm: ALGORITHM[job.type], version: job.version === 0x10 ? Version.V0x10 : Version.V0x13,
          outputLen: job.hashLength, memoryCost: job.memory, timeCost: job.iterations, parallelism: job.parallelism })
      : pbkdf2Sync(job.password, salt, job.iterations, job.keyLength, job.digest);
    parentPort.postMessage({ id, hash: out });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});
`;

interface Slot {
  worker: Worker;
  busy: number;
}

/** A job sent to a worker: how to answer it, and the worker that has it. */
interface Pending {
  resolve(hash: Buffer): void;
  reject(e: Error): void;
  slot: Slot;
}

const slots: Slot[] = [];
const pending = new Map<number, Pending>();
let nextId = 0;

function spawn(): Slot {
  const worker = new Worker(SOURCE, { eval: true, workerData: { argon2: require.resolve('@node-rs/argon2') } });
  const slot: Slot = { worker, busy: 0 };
  worker.on('message', (m: { id: number; hash?: Uint8Array; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (--slot.busy === 0) worker.unref();
    if (!p) return;
    if (m.error !== undefined || !m.hash) p.reject(new Error(m.error ?? 'no hash'));
    else p.resolve(Buffer.from(m.hash.buffer, m.hash.byteOffset, m.hash.byteLength));
  });
  worker.on('error', (e) => fail(slot, e));
  worker.on('exit', (code) => fail(slot, new Error(`hash worker exited with code ${code}`)));
  // A worker keeps the process alive exactly while it has jobs (`rawHash` refs it, the last answer
  // unrefs it): a CLI that awaits only a hash must not exit before it, and an idle worker must not hold
  // the process (a jest worker: "failed to exit gracefully"). After the listeners: adding a 'message'
  // listener refs the worker's port again.
  worker.unref();
  return slot;
}

/** A worker that died takes its jobs with it: they fail (the caller's request answers an error), and a new worker takes its place. */
function fail(slot: Slot, e: Error): void {
  const i = slots.indexOf(slot);
  if (i < 0) return;
  slots.splice(i, 1);
  for (const [id, p] of pending) {
    if (p.slot === slot) {
      pending.delete(id);
      p.reject(e);
    }
  }
}

/** The least busy worker, started on first use. */
function pick(): Slot {
  while (slots.length < HASH_WORKERS) slots.push(spawn());
  return slots.reduce((a, b) => (b.busy < a.busy ? b : a));
}

/** The raw hash of a job, computed on a low-priority worker thread. */
export function rawHash(job: HashJob): Promise<Buffer> {
  const slot = pick();
  const id = nextId++;
  if (slot.busy++ === 0) slot.worker.ref();
  return new Promise<Buffer>((resolve, reject) => {
    pending.set(id, { resolve, reject, slot });
    slot.worker.postMessage({ id, job });
  });
}
