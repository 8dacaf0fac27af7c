import { Router } from 'express';
import { partialExport } from '../../src/services/import-export/partial-export';
import { partialImport } from '../../src/services/import-export/partial-import';
import { ctxOf, json, qBool, realmOf, requiredJson, route } from '../http';

/** `/{realm}/partialImport` and `/{realm}/partial-export` (core reference §3.13–3.14). */
export const partialImportExportRouter = Router({ mergeParams: true });

partialImportExportRouter.post(
  '/partialImport',
  route(async (req, res) => {
    json(res, await partialImport(ctxOf(res), realmOf(res), requiredJson(req)));
  }),
);

partialImportExportRouter.post(
  '/partial-export',
  route(async (req, res) =>
    json(
      res,
      await partialExport(ctxOf(res), realmOf(res), {
        exportClients: qBool(req, 'exportClients') ?? false,
        exportGroupsAndRoles: qBool(req, 'exportGroupsAndRoles') ?? false,
      }),
    ),
  ),
);
