import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIP, connect, type Socket } from 'node:net';
import { constants, gzipSync } from 'node:zlib';
import { reportToConsole } from './report';
import { gelfDropped } from '../metrics';

/**
 * GELF transports. UDP: gzip, then GELF chunks (0x1e 0x0f, 8-byte id, sequence, count; at most 128)
 * when the payload exceeds the maximum message size. TCP: uncompressed JSON ending with a null byte,
 * through a bounded queue, reconnecting with back-off. Neither ever blocks or throws into the caller:
 * messages that cannot be sent are dropped and counted, and the count is reported on the console.
 */
export const MAX_CHUNKS = 128;
const CHUNK_HEADER = 12;
const REPORT_EVERY_MS = 30_000;

export interface GelfSender {
  send(json: string): void;
  /** Messages dropped so far. */
  readonly dropped: number;
  close(done: () => void): void;
}

/** Splits a payload into GELF chunks of at most maxSize bytes; undefined when it needs more than 128. */
export function gelfChunks(payload: Buffer, maxSize: number): Buffer[] | undefined {
  if (payload.length <= maxSize) return [payload];
  const body = maxSize - CHUNK_HEADER;
  const count = Math.ceil(payload.length / body);
  if (count > MAX_CHUNKS) return undefined;
  const id = randomBytes(8);
  const out: Buffer[] = [];
  for (let seq = 0; seq < count; seq++) {
    const header = Buffer.from([0x1e, 0x0f, ...id, seq, count]);
    out.push(Buffer.concat([header, payload.subarray(seq * body, (seq + 1) * body)]));
  }
  return out;
}

/** Counts drops and reports them on the console at most every 30 s (and on recovery). */
class DropCounter {
  dropped = 0;
  private unreported = 0;
  private timer?: NodeJS.Timeout;
  constructor(private readonly target: string) {}

  drop(n = 1): void {
    this.dropped += n;
    gelfDropped.inc(n);
    this.unreported += n;
    if (!this.timer) {
      this.timer = setTimeout(() => this.report(), REPORT_EVERY_MS);
      this.timer.unref();
    }
  }

  report(suffix = ''): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unreported > 0) reportToConsole('WARN', `GELF ${this.target}: ${this.unreported} log messages dropped${suffix}`);
    this.unreported = 0;
  }
}

/** UDP sender: resolves the host once (again after errors), sends gzip-compressed, chunked datagrams. */
export function udpSender(host: string, port: number, maxSize: number): GelfSender {
  const target = `udp:${host}:${port}`;
  const drops = new DropCounter(target);
  const family = isIP(host) === 6 ? 6 : 4;
  const socket: UdpSocket = createSocket(family === 6 ? 'udp6' : 'udp4');
  socket.on('error', () => undefined);
  socket.unref();
  let address = isIP(host) ? host : undefined;
  let inflight = 0;
  const resolveHost = () => {
    if (isIP(host)) return;
    lookup(host, { family }, (err, addr) => {
      if (!err) address = addr;
    });
  };
  resolveHost();
  return {
    get dropped() {
      return drops.dropped;
    },
    send(json) {
      const chunks = gelfChunks(gzipSync(json, { level: constants.Z_BEST_SPEED }), maxSize);
      if (!chunks || inflight > 1000) {
        drops.drop();
        return;
      }
      for (const c of chunks) {
        inflight++;
        socket.send(c, port, address ?? host, (err) => {
          inflight--;
          if (err) {
            drops.drop();
            resolveHost();
          }
        });
      }
    },
    close(done) {
      drops.report();
      try {
        socket.close(() => done());
      } catch {
        done();
      }
    },
  };
}

/** TCP sender: null-terminated JSON frames, a bounded queue, reconnect with back-off (0.1 s doubling to 30 s). */
export function tcpSender(host: string, port: number, maxQueue = 10_000): GelfSender {
  const target = `tcp:${host}:${port}`;
  const drops = new DropCounter(target);
  const queue: Buffer[] = [];
  let socket: Socket | undefined;
  let connected = false;
  let closing = false;
  let backoff = 100;
  let downSince: number | undefined;
  let retry: NodeJS.Timeout | undefined;

  const flush = () => {
    while (socket && connected && queue.length > 0) {
      if (!socket.write(queue.shift() as Buffer)) break;
    }
  };
  const open = () => {
    retry = undefined;
    const s = connect({ host, port });
    socket = s;
    s.unref();
    s.setNoDelay(true);
    s.setTimeout(5000, () => s.destroy(new Error('connect timeout')));
    s.once('connect', () => {
      s.setTimeout(0);
      connected = true;
      backoff = 100;
      if (downSince !== undefined) {
        drops.report(' while the connection was down');
        reportToConsole('INFO', `GELF ${target}: connected again`);
      }
      downSince = undefined;
      flush();
    });
    s.on('drain', flush);
    s.on('error', (e) => {
      if (downSince === undefined && !closing)
        reportToConsole('WARN', `GELF ${target}: ${e.message}; retrying with back-off, messages may be dropped`);
      downSince ??= Date.now();
    });
    s.on('close', () => {
      connected = false;
      socket = undefined;
      downSince ??= Date.now();
      if (closing) return;
      retry = setTimeout(open, backoff);
      retry.unref();
      backoff = Math.min(backoff * 2, 30_000);
    });
  };
  open();
  return {
    get dropped() {
      return drops.dropped;
    },
    send(json) {
      const frame = Buffer.from(`${json}\0`);
      if (socket && connected && queue.length === 0 && !socket.writableNeedDrain) socket.write(frame);
      else if (queue.length < maxQueue) queue.push(frame);
      else drops.drop();
    },
    close(done) {
      closing = true;
      if (retry) clearTimeout(retry);
      const s = socket;
      if (!s || !connected) {
        drops.drop(queue.splice(0).length);
        drops.report();
        s?.destroy();
        done();
        return;
      }
      for (const f of queue.splice(0)) s.write(f);
      drops.report();
      const timer = setTimeout(() => s.destroy(), 1000);
      timer.unref();
      s.end(() => {
        clearTimeout(timer);
        done();
      });
    },
  };
}
