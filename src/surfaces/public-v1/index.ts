// The public surface under /v1 (the first seed document): envelope `{error}`, 60/min per IP or 600/min per key.
import { credentialRoutes } from './credentials.routes.js';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { v1Envelope } from '../../http/error-handler.js';
import { routeConfig } from '../../http/route-config.js';
import { accountBucket, accountPolicy, callerKey, principalAccount, setupSurface } from '../../http/surface.js';
import { changeRoutes } from '../changes.feed.js';
import { searchRoutes } from '../search.routes.js';
import { OpenApiCollector } from '../docs/openapi.js';
import { embedScriptRoute } from '../embed/embed.routes.js';
import { recordRoutes } from '../web/records.routes.js';
import { extensionRoutes } from './extension.routes.js';
import { logRoutes } from './log.routes.js';
import { moderationRoutes } from './moderation.routes.js';
import { witnessRoutes } from './witness.routes.js';
import { pageRecordRoutes } from './pages.routes.js';
import { panelRoutes } from './panels.routes.js';
import { documentV1Webhooks } from './webhook-events.presenter.js';
import { v1WorkRoutes } from './work.routes.js';

export const V1_PREFIX = '/v1';

export function publicV1(deps: Deps, openapi: OpenApiCollector) {
  const keyPolicy = { name: 'v1-key', capacity: 600, rate: 10 };
  const anonPolicy = { name: 'v1-ip', capacity: 60, rate: 1 };
  const ownerPolicy = accountPolicy(deps, 'v1-account', keyPolicy);
  return async function plugin(app: FastifyInstance) {
    setupSurface(app, deps, {
      envelope: v1Envelope,
      rateLimit: (req) => {
        if (routeConfig(req).unlimited) return null;
        const caller = callerKey(req);
        return { policy: caller.kind === 'key' ? keyPolicy : anonPolicy, key: `v1:${caller.id}`, account: accountBucket(principalAccount(req), 'v1', ownerPolicy) };
      },
    });
    openapi.attach(app);
    app.get('/openapi.json', { config: { hidden: true, unlimited: true } }, async () => openapi.document(deps.config.siteUrl));
    pageRecordRoutes(app, deps);
    panelRoutes(app, deps);
    v1WorkRoutes(app, deps);
    logRoutes(app, deps);
    credentialRoutes(app, deps);
    moderationRoutes(app, deps);
    extensionRoutes(app, deps);
    await app.register(witnessRoutes(deps));
    changeRoutes(app, deps, 'v1');
    searchRoutes(app, deps, 'v1');
    // The root addresses (record_url, proof_url, embed.js) once more under /v1, JSON only, for generated clients.
    recordRoutes(app, deps, 'surface');
    embedScriptRoute(app, deps.config, 'surface');
    documentV1Webhooks(openapi);
  };
}
