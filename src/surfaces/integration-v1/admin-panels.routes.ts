// Operators issue expert panel statements (SPEC §5, §14, §16): an admin session only.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { StatementInput, VersionInput } from '../../domain/panels/panel.schema.js';
import * as panels from '../../domain/panels/panel.service.js';
import { adminOnly, sessionOnly } from '../../http/auth.js';
import { Ok } from '../../http/schemas.js';
import { V1PanelStatement, presentV1Statement } from '../public-v1/panels.presenter.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Statement identifier' }) });

export function adminPanelRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['admin'];
  const site = deps.config.siteUrl;
  // sessionOnly first, though adminOnly checks it too: the OpenAPI documents read it as "needs a session token".
  const admin = [sessionOnly, adminOnly(deps)];

  app.post(
    '/admin/panels',
    {
      preValidation: admin,
      schema: {
        tags,
        summary: 'Create a panel statement and issue its version 1 (admins)',
        body: StatementInput,
        response: { 201: Ok(V1PanelStatement) },
      },
    },
    async (req, reply) => {
      const statement = await panels.createStatement(deps, req.body);
      return reply.status(201).send({ success: true as const, data: presentV1Statement(site, statement) });
    },
  );

  app.post(
    '/admin/panels/:id/versions',
    {
      preValidation: admin,
      schema: {
        tags,
        summary: 'Issue the next version of a panel statement; the current one becomes superseded (admins)',
        params: IdParam,
        body: VersionInput,
        response: { 201: Ok(V1PanelStatement) },
      },
    },
    async (req, reply) => {
      const statement = await panels.issueVersion(deps, req.params.id, req.body);
      return reply.status(201).send({ success: true as const, data: presentV1Statement(site, statement) });
    },
  );
}
