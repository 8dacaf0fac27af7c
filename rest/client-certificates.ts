import busboy from 'busboy';
import { type Request, type Response, Router } from 'express';
import { errorC } from '../src/errors';
import {
  type CertificateUpload,
  type KeyStoreConfig,
  downloadClientKeystore,
  generateAndDownloadClientKeystore,
  generateClientCertificate,
  getClientCertificate,
  uploadClientCertificate,
} from '../src/services/client-certificates';
import { ctxOf, json, jsonBody, realmOf, route } from './http';

/** `/admin/realms/{realm}/clients/{id}/certificates/{attr}` — key info, generate, upload, keystore downloads. */
export const clientCertificatesRouter = Router({ mergeParams: true });

const uuidOf = (req: Request) => req.params.clientUuid as string;
const attrOf = (req: Request) => req.params.attr as string;
const FIELDS = ['keystoreFormat', 'keyAlias', 'keyPassword', 'storePassword'] as const;

/** The multipart/form-data fields of an upload (the body is already buffered by the admin router). */
function multipart(req: Request): Promise<CertificateUpload> {
  const type = req.headers['content-type'];
  if (!type || !/^multipart\/form-data/i.test(type)) throw errorC(415, 'HTTP 415 Unsupported Media Type');
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
    const out: CertificateUpload = {};
    bb.on('field', (name, value) => {
      if ((FIELDS as readonly string[]).includes(name)) out[name as (typeof FIELDS)[number]] = value;
      else if (name === 'file') out.file = Buffer.from(value, 'utf8');
    });
    bb.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (name === 'file') out.file = Buffer.concat(chunks);
      });
    });
    bb.on('close', () => resolve(out));
    bb.on('error', bad);
    bb.end(body);
  });
}

const keystore = (res: Response, bytes: Buffer) => res.status(200).type('application/octet-stream').send(bytes);
const config = (req: Request) => jsonBody<KeyStoreConfig>(req, 'KeyStoreConfig');

clientCertificatesRouter.get(
  '/:attr',
  route(async (req, res) => json(res, await getClientCertificate(ctxOf(res), realmOf(res), uuidOf(req), attrOf(req)))),
);

clientCertificatesRouter.post(
  '/:attr/generate',
  route(async (req, res) => json(res, await generateClientCertificate(ctxOf(res), realmOf(res), uuidOf(req), attrOf(req)))),
);

clientCertificatesRouter.post(
  '/:attr/download',
  route(async (req, res) => keystore(res, await downloadClientKeystore(ctxOf(res), realmOf(res), uuidOf(req), attrOf(req), config(req)))),
);

clientCertificatesRouter.post(
  '/:attr/generate-and-download',
  route(async (req, res) =>
    keystore(res, await generateAndDownloadClientKeystore(ctxOf(res), realmOf(res), uuidOf(req), attrOf(req), config(req))),
  ),
);

for (const action of ['upload', 'upload-certificate'] as const) {
  clientCertificatesRouter.post(
    `/:attr/${action}`,
    route(async (req, res) =>
      json(res, await uploadClientCertificate(ctxOf(res), realmOf(res), uuidOf(req), attrOf(req), await multipart(req), action)),
    ),
  );
}
