// The integration surface under /api/v1 (the second seed document): envelope `{success, ...}`, per-key limits.
import { credentialRoutes } from './credentials.routes.js';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { apiEnvelope } from '../../http/error-handler.js';
import { routeConfig } from '../../http/route-config.js';
import { accountBucket, accountPolicy, callerKey, principalAccount, setupSurface } from '../../http/surface.js';
import { changeRoutes } from '../changes.feed.js';
import { searchRoutes } from '../search.routes.js';
import { OpenApiCollector } from '../docs/openapi.js';
import { accountRoutes } from './account.routes.js';
import { appealRoutes } from './appeals.routes.js';
import { authorLinkRoutes } from './author-links.routes.js';
import { consentRoutes } from './consent.routes.js';
import { interestRoutes } from './interests.routes.js';
import { privacyRoutes } from './privacy.routes.js';
import { adminPanelRoutes } from './admin-panels.routes.js';
import { authRoutes } from './auth.routes.js';
import { pageRoutes } from './pages.routes.js';
import { embedApiRoutes } from '../embed/embed.routes.js';
import { contributorRoutes } from './contributors.routes.js';
import { publisherRoutes } from './publishers.routes.js';
import { requestRoutes } from './requests.routes.js';
import { submissionRoutes } from './submissions.routes.js';
import { webhookRoutes } from './webhooks.routes.js';

export const API_PREFIX = '/api/v1';

export function integrationV1(deps: Deps, openapi: OpenApiCollector) {
  const keyPolicy = { name: 'api-key', capacity: 60, rate: 10 };
  const anonPolicy = { name: 'api-ip', ...deps.config.apiAnonRateLimit };
  const ownerPolicy = accountPolicy(deps, 'api-account', keyPolicy);
  return async function plugin(app: FastifyInstance) {
    setupSurface(app, deps, {
      envelope: apiEnvelope,
      rateLimit: (req) => {
        if (routeConfig(req).unlimited) return null;
        const caller = callerKey(req);
        return { policy: caller.kind === 'key' ? keyPolicy : anonPolicy, key: `api:${caller.id}`, account: accountBucket(principalAccount(req), 'api', ownerPolicy) };
      },
    });
    openapi.attach(app);
    app.get('/openapi.json', { config: { hidden: true, unlimited: true } }, async () => openapi.document(deps.config.siteUrl));
    authRoutes(app, deps);
    accountRoutes(app, deps);
    pageRoutes(app, deps);
    publisherRoutes(app, deps);
    requestRoutes(app, deps);
    submissionRoutes(app, deps);
    consentRoutes(app, deps);
    authorLinkRoutes(app, deps);
    privacyRoutes(app, deps);
    interestRoutes(app, deps);
    appealRoutes(app, deps);
    credentialRoutes(app, deps);
    contributorRoutes(app, deps);
    embedApiRoutes(app, deps);
    adminPanelRoutes(app, deps);
    webhookRoutes(app, deps, openapi);
    changeRoutes(app, deps, 'api');
    searchRoutes(app, deps, 'api');
  };
}
