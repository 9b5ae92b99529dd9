import type { FastifyInstance } from 'fastify';
/** The bare target's Fastify app (bench/bare.mjs). */
export function bareApp(): FastifyInstance;
