import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { cliArgs } from '../helpers/cli';

/** A writable stream that keeps what is written (the console handler's injectable stream). */
export class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
  lines(): string[] {
    return this.text.split('\n').filter(Boolean);
  }
}

export type Gelf = Record<string, unknown>;

export interface GelfListener {
  port: number;
  messages: Gelf[];
  /** Datagrams (UDP) or connections (TCP) seen. */
  packets: Buffer[];
  waitFor(pred: (m: Gelf) => boolean, timeoutMs?: number): Promise<Gelf>;
  close(): Promise<void>;
}

function waiter(messages: Gelf[]) {
  return (pred: (m: Gelf) => boolean, timeoutMs = 10000) =>
    new Promise<Gelf>((resolve, reject) => {
      const started = Date.now();
      const tick = () => {
        const hit = messages.find(pred);
        if (hit) resolve(hit);
        else if (Date.now() - started > timeoutMs)
          reject(new Error(`no matching GELF message among ${messages.length}: ${JSON.stringify(messages.slice(-3))}`));
        else setTimeout(tick, 20);
      };
      tick();
    });
}

/** A GELF UDP listener that reassembles chunks (0x1e 0x0f) and decompresses gzip payloads. */
export async function udpGelfListener(): Promise<GelfListener> {
  const socket = createSocket('udp4');
  const messages: Gelf[] = [];
  const packets: Buffer[] = [];
  const pending = new Map<string, Buffer[]>();
  const decode = (payload: Buffer) => {
    const json = payload[0] === 0x1f && payload[1] === 0x8b ? gunzipSync(payload) : payload;
    messages.push(JSON.parse(json.toString('utf8')));
  };
  socket.on('message', (buf) => {
    packets.push(buf);
    if (buf[0] === 0x1e && buf[1] === 0x0f) {
      const id = buf.subarray(2, 10).toString('hex');
      const seq = buf[10];
      const count = buf[11];
      const parts = pending.get(id) ?? new Array<Buffer>(count);
      parts[seq] = buf.subarray(12);
      pending.set(id, parts);
      if (parts.filter(Boolean).length === count) {
        pending.delete(id);
        decode(Buffer.concat(parts));
      }
    } else decode(buf);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return {
    port: socket.address().port,
    messages,
    packets,
    waitFor: waiter(messages),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** A GELF TCP listener: null-terminated, uncompressed JSON frames. */
export async function tcpGelfListener(port = 0): Promise<GelfListener & { sockets: Socket[]; server: Server }> {
  const messages: Gelf[] = [];
  const packets: Buffer[] = [];
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    let buf = Buffer.alloc(0);
    s.on('data', (d) => {
      packets.push(d);
      buf = Buffer.concat([buf, d]);
      let nul = buf.indexOf(0);
      while (nul >= 0) {
        messages.push(JSON.parse(buf.subarray(0, nul).toString('utf8')));
        buf = buf.subarray(nul + 1);
        nul = buf.indexOf(0);
      }
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    messages,
    packets,
    sockets,
    server,
    waitFor: waiter(messages),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface Cli {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the server's base URL once it logs that it is listening. */
  url: Promise<string>;
  stop(): Promise<number | null>;
  /** Resolves with the exit code when the process ends by itself. */
  exited: Promise<number | null>;
}

/** Runs `src/cli.ts` in a child process (as bin/idserver does), capturing stdout and stderr. */
export function runCli(args: string[], env: Record<string, string> = {}): Cli {
  const proc = spawn(process.execPath, cliArgs(args), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TZ: process.env.TZ ?? '', ...env },
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/[^\s"\\]+)/.exec(out + err);
      if (m) resolve(m[1]);
    };
    proc.stdout.on('data', (d) => {
      out += d;
      check();
    });
    proc.stderr.on('data', (d) => {
      err += d;
      check();
    });
    void exited.then((code) => reject(new Error(`idserver exited with ${code}: ${out}${err}`)));
  });
  url.catch(() => undefined);
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    url,
    exited,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls until `pred` holds (for output arriving asynchronously). */
export async function eventually(pred: () => boolean, timeoutMs = 10000): Promise<void> {
  const started = Date.now();
  while (!pred()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
