import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the test slapd that answers some simple binds as Active Directory does when
 * the password is right but the account cannot log in: resultCode 49 (invalidCredentials) with AD's
 * diagnostic `80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error, data 773, v4563`.
 * It can also refuse one modify of an entry as AD does (a password its policy refuses). Everything
 * else goes to slapd unchanged. slapd cannot say that itself; this is the one part of AD the MSAD
 * mappers' bind and password handling needs.
 */
export interface AdBindProxy {
  url: string;
  /** Binds as `dn` with `password` are refused with AD's `data <code>`. */
  refuse(dn: string, password: string, code: string): void;
  /** The next modify of `dn` that replaces `attribute` is refused with this result code and diagnostic (once). */
  refuseModify(dn: string, attribute: string, resultCode: number, diagnostic: string): void;
  /**
   * Modifies of `dn` that carry a request control of this OID are answered success here (slapd refuses a
   * critical control it does not know) and kept, raw, in the returned list.
   */
  acceptWithControl(dn: string, oid: string): Buffer[];
  close(): Promise<void>;
}

/** The length of a BER element at `at` (tag byte first): [header bytes, content bytes], or undefined when incomplete. */
function berLength(buf: Buffer, at: number): [number, number] | undefined {
  if (buf.length < at + 2) return undefined;
  const first = buf[at + 1];
  if (first < 0x80) return [2, first];
  const n = first & 0x7f;
  if (buf.length < at + 2 + n) return undefined;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + buf[at + 2 + i];
  return [2 + n, len];
}

/** An element's content, when it is complete: [content start, content end]. */
function element(buf: Buffer, at: number): [number, number] | undefined {
  const l = berLength(buf, at);
  if (!l) return undefined;
  return [at + l[0], at + l[0] + l[1]];
}

const encodeLength = (n: number) =>
  n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
const tlv = (tag: number, value: Buffer) => Buffer.concat([Buffer.from([tag]), encodeLength(value.length), value]);

/** A simple bind request's message id bytes, DN and password; undefined for any other message. */
function simpleBind(msg: Buffer): { id: Buffer; dn: string; password: string } | undefined {
  const outer = element(msg, 0);
  if (!outer || msg[0] !== 0x30) return undefined;
  const id = element(msg, outer[0]);
  if (!id || msg[outer[0]] !== 0x02) return undefined;
  const op = id[1];
  if (msg[op] !== 0x60) return undefined;
  const body = element(msg, op);
  if (!body) return undefined;
  const version = element(msg, body[0]);
  if (!version) return undefined;
  const name = element(msg, version[1]);
  if (!name || msg[version[1]] !== 0x04) return undefined;
  const auth = element(msg, name[1]);
  if (!auth || msg[name[1]] !== 0x80) return undefined;
  return {
    id: msg.subarray(id[0], id[1]),
    dn: msg.subarray(name[0], name[1]).toString('utf8'),
    password: msg.subarray(auth[0], auth[1]).toString('utf8'),
  };
}

/** A modify request's message id bytes, DN and the raw bytes of its changes; undefined for any other message. */
function modifyRequest(msg: Buffer): { id: Buffer; dn: string; changes: string } | undefined {
  const outer = element(msg, 0);
  if (!outer || msg[0] !== 0x30) return undefined;
  const id = element(msg, outer[0]);
  if (!id || msg[outer[0]] !== 0x02) return undefined;
  const op = id[1];
  if (msg[op] !== 0x66) return undefined;
  const body = element(msg, op);
  if (!body) return undefined;
  const name = element(msg, body[0]);
  if (!name || msg[body[0]] !== 0x04) return undefined;
  return {
    id: msg.subarray(id[0], id[1]),
    dn: msg.subarray(name[0], name[1]).toString('utf8'),
    changes: msg.subarray(name[1], body[1]).toString('latin1'),
  };
}

/** An LDAPResult response (`tag` 0x61 bind, 0x67 modify) with this code and diagnostic. */
function result(id: Buffer, tag: number, resultCode: number, diagnostic: string): Buffer {
  const response = tlv(
    tag,
    Buffer.concat([Buffer.from([0x0a, 0x01, resultCode]), tlv(0x04, Buffer.alloc(0)), tlv(0x04, Buffer.from(diagnostic, 'utf8'))]),
  );
  return tlv(0x30, Buffer.concat([tlv(0x02, id), response]));
}

const refusal = (id: Buffer, code: string) =>
  result(id, 0x61, 49, `80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error, data ${code}, v4563`);

export async function startAdBindProxy(slapdPort: number): Promise<AdBindProxy> {
  const rules = new Map<string, { password: string; code: string }>();
  const modifyRules = new Map<string, { attribute: string; resultCode: number; diagnostic: string }>();
  const controlRules = new Map<string, { oid: string; seen: Buffer[] }>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(slapdPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const whole = element(pending, 0);
        if (!whole || pending.length < whole[1]) return;
        const msg = pending.subarray(0, whole[1]);
        pending = pending.subarray(whole[1]);
        const bind = simpleBind(msg);
        const rule = bind && rules.get(bind.dn.toLowerCase());
        const modify = bind ? undefined : modifyRequest(msg);
        const modifyRule = modify && modifyRules.get(modify.dn.toLowerCase());
        const control = modify && controlRules.get(modify.dn.toLowerCase());
        if (modify && control && msg.includes(Buffer.from(control.oid, 'latin1'))) {
          control.seen.push(Buffer.from(msg));
          client.write(result(modify.id, 0x67, 0, ''));
          continue;
        }
        if (bind && rule && rule.password === bind.password) client.write(refusal(bind.id, rule.code));
        else if (modify && modifyRule && modify.changes.toLowerCase().includes(modifyRule.attribute.toLowerCase())) {
          modifyRules.delete(modify.dn.toLowerCase());
          client.write(result(modify.id, 0x67, modifyRule.resultCode, modifyRule.diagnostic));
        } else upstream.write(msg);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    url: `ldap://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refuse(dn, password, code) {
      rules.set(dn.toLowerCase(), { password, code });
    },
    refuseModify(dn, attribute, resultCode, diagnostic) {
      modifyRules.set(dn.toLowerCase(), { attribute, resultCode, diagnostic });
    },
    acceptWithControl(dn, oid) {
      const seen: Buffer[] = [];
      controlRules.set(dn.toLowerCase(), { oid, seen });
      return seen;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
