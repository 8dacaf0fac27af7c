import { type Request, Router } from 'express';
import { errorC } from '../../src/core/errors';
import {
  asTexts,
  deleteLocale,
  deleteText,
  getLocaleTexts,
  getText,
  listLocales,
  saveText,
  saveTexts,
} from '../../src/services/realms/localization';
import { contentTypeMismatch, ctxOf, json, noContent, qBool, realmOf, requiredJson, route, textBody } from '../http';
import { isMultipart, multipartFields } from '../multipart';

/** `/{realm}/localization`: realm localization texts (config reference §10.4). */
export const localizationRouter = Router({ mergeParams: true });

const badRequest = () => errorC(400, 'HTTP 400 Bad Request');

/** The texts of a POST body: a JSON map, or a JSON file uploaded as multipart field `file`. */
async function textsBody(req: Request): Promise<unknown> {
  const ct = req.headers['content-type'] ?? '';
  if (isMultipart(req)) {
    const file = (await multipartFields(req)).get('file');
    if (file === undefined) throw badRequest();
    try {
      return asTexts(JSON.parse(file.toString('utf8')));
    } catch {
      throw errorC(400, 'Could not read file.');
    }
  }
  if (ct && !/^application\/([\w.+-]*\+)?json\b/i.test(ct)) throw contentTypeMismatch();
  return requiredJson(req);
}

const param = (req: Request, name: string) => String(req.params[name]);

localizationRouter.get(
  '/',
  route(async (_req, res) => json(res, await listLocales(ctxOf(res), realmOf(res)))),
);
localizationRouter.get(
  '/:locale',
  route(async (req, res) =>
    json(res, await getLocaleTexts(ctxOf(res), realmOf(res), param(req, 'locale'), qBool(req, 'useRealmDefaultLocaleFallback') ?? false)),
  ),
);
localizationRouter.post(
  '/:locale',
  route(async (req, res) => {
    await saveTexts(ctxOf(res), realmOf(res), param(req, 'locale'), await textsBody(req));
    noContent(res);
  }),
);
localizationRouter.delete(
  '/:locale',
  route(async (req, res) => {
    await deleteLocale(ctxOf(res), realmOf(res), param(req, 'locale'));
    noContent(res);
  }),
);
localizationRouter.get(
  '/:locale/:key',
  route(async (req, res) => {
    const text = await getText(ctxOf(res), realmOf(res), param(req, 'locale'), param(req, 'key'));
    res.status(200).type('text/plain').send(text);
  }),
);
localizationRouter.put(
  '/:locale/:key',
  route(async (req, res) => {
    const ct = req.headers['content-type'];
    if (ct && !/^text\/plain\b/i.test(ct)) throw contentTypeMismatch();
    await saveText(ctxOf(res), realmOf(res), param(req, 'locale'), param(req, 'key'), textBody(req));
    noContent(res);
  }),
);
localizationRouter.delete(
  '/:locale/:key',
  route(async (req, res) => {
    await deleteText(ctxOf(res), realmOf(res), param(req, 'locale'), param(req, 'key'));
    noContent(res);
  }),
);
