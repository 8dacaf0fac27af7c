import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * How tests start the `idserver` CLI in a child process: `node <build>/src/cli.js <args>`, the sources
 * compiled once by `tsc` (as `npm run build` does, into node_modules/.cache so that packages resolve).
 * Running `src/cli.ts` through ts-node instead transpiled some 400 files in every child: 10-20 s of CPU
 * per process, and the suite starts some 40 of them per database.
 *
 * The build is made on first use, by whichever jest worker asks first (the others wait on a lock
 * directory), and kept while the sources are unchanged (a digest of their paths, sizes and times);
 * tsc's incremental information makes a rebuild after an edit short.
 */
export const ROOT = join(__dirname, '..', '..');
const OUT = join(ROOT, 'node_modules', '.cache', 'idserver-test-build');
const LOCK = `${OUT}.lock`;
const SOURCES = ['src', 'rest', 'resolvers', 'scripts'];

function digest(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        h.update(`${p}\0${s.size}\0${s.mtimeMs}\n`);
      }
    }
  };
  for (const d of SOURCES) walk(join(ROOT, d));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) h.update(`${f}\0${statSync(join(ROOT, f)).mtimeMs}\n`);
  return h.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The compiled CLI, built now if the sources changed since the last build. Synchronous (spawnSync callers). */
export function builtCli(): string {
  const stamp = join(OUT, `.built-${digest()}`);
  const cli = join(OUT, 'src', 'cli.js');
  if (existsSync(stamp)) return cli;
  mkdirSync(dirname(LOCK), { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      // Only a lock held by another worker is waited for; anything else is an error of its own.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (existsSync(stamp)) return cli;
      // A lock left by a killed run: taken over after five minutes.
      if (waited > 300_000) rmSync(LOCK, { recursive: true, force: true });
      sleep(200);
    }
  }
  try {
    if (!existsSync(stamp)) {
      const tsc = require.resolve('typescript/bin/tsc');
      const args = [
        '-p',
        'tsconfig.build.json',
        '--outDir',
        OUT,
        '--noCheck',
        '--incremental',
        '--tsBuildInfoFile',
        join(OUT, '.tsbuildinfo'),
      ];
      execFileSync(process.execPath, [tsc, ...args], { cwd: ROOT, stdio: 'pipe' });
      for (const old of existsSync(OUT) ? readdirSync(OUT).filter((f) => f.startsWith('.built-')) : []) rmSync(join(OUT, old));
      writeFileSync(stamp, '');
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
  return cli;
}

/** `process.execPath` arguments that run `idserver <args>` from the compiled sources. */
export function cliArgs(args: string[]): string[] {
  return [builtCli(), ...args];
}
