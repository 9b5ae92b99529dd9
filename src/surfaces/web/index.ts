// Public addresses at the site root (record_url, proof_url; the web pages later). /v1 envelope and /v1 limits.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { v1Envelope } from '../../http/error-handler.js';
import { callerKey, setupSurface } from '../../http/surface.js';
import type { OpenApiCollector } from '../docs/openapi.js';
import { embedDemoPage } from '../embed/demo.page.js';
import { embedScriptRoute } from '../embed/embed.routes.js';
import { recordRoutes } from './records.routes.js';

export function web(deps: Deps, openapi: OpenApiCollector) {
  const keyPolicy = { name: 'v1-key', capacity: 600, rate: 10 };
  const anonPolicy = { name: 'v1-ip', capacity: 60, rate: 1 };
  return async function plugin(app: FastifyInstance) {
    setupSurface(app, deps, {
      envelope: v1Envelope,
      notFound: false,
      rateLimit: (req) => {
        if ((req.routeOptions.config as { unlimited?: boolean } | undefined)?.unlimited) return null;
        const caller = callerKey(req);
        return { policy: caller.kind === 'key' ? keyPolicy : anonPolicy, key: `v1:${caller.id}` };
      },
    });
    openapi.attach(app);
    recordRoutes(app, deps);
    embedScriptRoute(app);
    embedDemoPage(app, deps);
  };
}
