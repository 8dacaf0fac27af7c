import { type Request, type Response, Router } from 'express';
import { errorC } from '../../src/core/errors';
import {
  type CertificateUpload,
  type KeyStoreConfig,
  downloadClientKeystore,
  generateAndDownloadClientKeystore,
  generateClientCertificate,
  getClientCertificate,
  uploadClientCertificate,
} from '../../src/services/clients/client-certificates';
import { ctxOf, json, jsonBody, realmOf, route } from '../http';
import { isMultipart, multipartFields } from '../multipart';
import { clientOf } from '../parents';

/**
 * `/admin/realms/{realm}/clients/{id}/certificates/{attr}` — key info, generate, upload, keystore
 * downloads. A body (keystore config, multipart upload) is read before the client is resolved.
 */
export const clientCertificatesRouter = Router({ mergeParams: true });

const attrOf = (req: Request) => req.params.attr as string;
const FIELDS = ['keystoreFormat', 'keyAlias', 'keyPassword', 'storePassword'] as const;

/** The multipart/form-data fields of an upload: the keystore settings and the `file`. */
async function multipart(req: Request): Promise<CertificateUpload> {
  if (!isMultipart(req)) throw errorC(415, 'HTTP 415 Unsupported Media Type');
  const fields = await multipartFields(req);
  const out: CertificateUpload = { file: fields.get('file') };
  for (const name of FIELDS) {
    const v = fields.get(name);
    if (v) out[name] = v.toString('utf8');
  }
  return out;
}

const keystore = (res: Response, bytes: Buffer) => res.status(200).type('application/octet-stream').send(bytes);
const config = (req: Request) => jsonBody<KeyStoreConfig>(req, 'KeyStoreConfig');

clientCertificatesRouter.get(
  '/:attr',
  route(async (req, res) => json(res, await getClientCertificate(ctxOf(res), realmOf(res), await clientOf(req, res), attrOf(req)))),
);

clientCertificatesRouter.post(
  '/:attr/generate',
  route(async (req, res) => json(res, await generateClientCertificate(ctxOf(res), realmOf(res), await clientOf(req, res), attrOf(req)))),
);

clientCertificatesRouter.post(
  '/:attr/download',
  route(async (req, res) => {
    const cfg = config(req);
    keystore(res, await downloadClientKeystore(ctxOf(res), realmOf(res), await clientOf(req, res), attrOf(req), cfg));
  }),
);

clientCertificatesRouter.post(
  '/:attr/generate-and-download',
  route(async (req, res) => {
    const cfg = config(req);
    keystore(res, await generateAndDownloadClientKeystore(ctxOf(res), realmOf(res), await clientOf(req, res), attrOf(req), cfg));
  }),
);

for (const action of ['upload', 'upload-certificate'] as const) {
  clientCertificatesRouter.post(
    `/:attr/${action}`,
    route(async (req, res) => {
      const upload = await multipart(req);
      json(res, await uploadClientCertificate(ctxOf(res), realmOf(res), await clientOf(req, res), attrOf(req), upload, action));
    }),
  );
}
