import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliArgs } from './cli';

/** An idserver process of its own, as an operator starts it (`src/cli.ts <args>`). */
export interface ChildServer {
  proc: ChildProcess;
  /** Its public URL, from the "idserver listening on" line. */
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
}

const ROOT = join(__dirname, '..', '..');

/**
 * Starts `idserver <args>` (e.g. `start-dev --http-port=0 --db-url=...`) with only PATH, HOME, log
 * level info and `env` in its environment, and resolves once it listens; rejects with its output when
 * it exits first. The caller kills it (`proc.kill`) or stops it with a signal.
 */
export function startChildServer(args: string[], env: Record<string, string> = {}): Promise<ChildServer> {
  const proc = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', IDSERVER_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  proc.stdout?.on('data', (c) => {
    text += c.toString();
  });
  proc.stderr?.on('data', (c) => {
    text += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise<ChildServer>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /idserver listening on (\S+)/.exec(text);
      if (m) {
        clearInterval(t);
        resolve({ proc, url: m[1].replace(/\/$/, ''), output: () => text, exited });
      } else if (proc.exitCode !== null) {
        clearInterval(t);
        reject(new Error(text));
      }
    }, 50);
  });
}
