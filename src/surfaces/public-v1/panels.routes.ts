// GET /v1/panels/{id} (any version) and GET /v1/panels (current versions, newest first): SPEC §14, seed §4.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { MAX_VERSION } from '../../domain/panels/panel.schema.js';
import * as panels from '../../domain/panels/panel.service.js';
import { optional } from '../../http/auth.js';
import { surrogateHeaders } from '../../http/cache-tier.js';
import { tag } from '../../domain/pages/cache-tags.js';
import { PageQuery, V1List, pagination } from '../../http/schemas.js';
import { V1PanelStatement, presentV1Statement } from './panels.presenter.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Statement identifier' }) });
const VersionQuery = Type.Object({
  version: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_VERSION, description: 'A version to read; the current one when left out' }),
  ),
});
const ListQuery = Type.Object({
  topic: Type.Optional(Type.String({ maxLength: 50, description: 'Only statements on this topic; every topic when left out' })),
  ...PageQuery.properties,
});

export function panelRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['panels'];
  const site = deps.config.siteUrl;

  app.get(
    '/panels',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Panel statements (their current versions), newest first',
        querystring: ListQuery,
        response: { 200: V1List(V1PanelStatement) },
      },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { total, items } = await panels.listStatements(deps, { topic: req.query.topic, page, perPage });
      return { data: items.map((s) => presentV1Statement(site, s)), meta: { total, page, per_page: perPage } };
    },
  );

  app.get(
    '/panels/:id',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'A panel statement: its current version, or any earlier one with ?version=',
        params: IdParam,
        querystring: VersionQuery,
        response: { 200: V1PanelStatement },
      },
    },
    async (req, reply) => {
      const statement = await panels.getStatement(deps, req.params.id, req.query.version);
      // Kept by the cache tier until a new version of the statement is issued.
      void reply.headers(surrogateHeaders(deps, req, [tag.panel(statement.id)]));
      return presentV1Statement(site, statement);
    },
  );
}
