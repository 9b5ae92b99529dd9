// Forward-only and never edited after they land: add a new file for every change, and list it here in order.
import * as m0001 from './0001_backbone.js';
import type { MigrationModule } from './helpers.js';

export const migrations: Record<string, MigrationModule> = {
  '0001_backbone': m0001,
};
