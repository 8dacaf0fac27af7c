import busboy from 'busboy';
import type { Request } from 'express';
import { errorC } from '../src/core/errors';

/** True when the request body is multipart/form-data. */
export const isMultipart = (req: Request) => /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');

/**
 * The fields of a multipart/form-data body (already buffered by the admin router), text fields and
 * uploaded files alike, as bytes by field name. A malformed body is Keycloak's 400.
 */
export function multipartFields(req: Request): Promise<Map<string, Buffer>> {
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const bad = () => reject(errorC(400, 'HTTP 400 Bad Request'));
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers });
    } catch {
      bad();
      return;
    }
    const out = new Map<string, Buffer>();
    bb.on('field', (name, value) => out.set(name, Buffer.from(value, 'utf8')));
    bb.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => out.set(name, Buffer.concat(chunks)));
    });
    bb.on('close', () => resolve(out));
    bb.on('error', bad);
    bb.end(body);
  });
}
