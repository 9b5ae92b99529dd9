// Forward-only and never edited after they land: add a new file for every change, and list it here in order.
import * as m0001 from './0001_backbone.js';
import * as m0002 from './0002_workflow.js';
import * as m0003 from './0003_panels.js';
import * as m0004 from './0004_webhooks.js';
import * as m0005 from './0005_topic_rank_index.js';
import * as m0006 from './0006_change_log.js';
import * as m0007 from './0007_transparency_log.js';
import * as m0009 from './0009_linked_data_drift.js';
import * as m0010 from './0010_security.js';
import * as m0011 from './0011_webhook_failing_since.js';
import * as m0012 from './0012_takes_and_invitations.js';
import * as m0013 from './0013_consent.js';
import * as m0014 from './0014_erasure.js';
import * as m0015 from './0015_mail.js';
import * as m0016 from './0016_living_record.js';
import * as m0017 from './0017_cache_purger.js';
import * as m0018 from './0018_witness.js';
import * as m0019 from './0019_own_webhooks.js';
import * as m0020 from './0020_mentions.js';
import * as m0021 from './0021_search.js';
import * as m0022 from './0022_independent_sources.js';
import * as m0023 from './0023_embed_key_hash.js';
import * as m0024 from './0024_session_device.js';
import * as m0025 from './0025_webhook_caps.js';
import * as m0028 from './0028_author_links.js';
import * as m0029 from './0029_free_text_commitments.js';
import * as m0031 from './0031_moderation.js';
import * as m0033 from './0033_verifiable_credentials.js';
import * as m0034 from './0034_oauth.js';
import type { MigrationModule } from './helpers.js';

export const migrations: Record<string, MigrationModule> = {
  '0001_backbone': m0001,
  '0002_workflow': m0002,
  '0003_panels': m0003,
  '0004_webhooks': m0004,
  '0005_topic_rank_index': m0005,
  '0006_change_log': m0006,
  '0007_transparency_log': m0007,
  '0009_linked_data_drift': m0009,
  '0010_security': m0010,
  '0011_webhook_failing_since': m0011,
  '0012_takes_and_invitations': m0012,
  '0013_consent': m0013,
  '0014_erasure': m0014,
  '0015_mail': m0015,
  '0016_living_record': m0016,
  '0017_cache_purger': m0017,
  '0018_witness': m0018,
  '0019_own_webhooks': m0019,
  '0020_mentions': m0020,
  '0021_search': m0021,
  '0022_independent_sources': m0022,
  '0023_embed_key_hash': m0023,
  '0024_session_device': m0024,
  '0025_webhook_caps': m0025,
  '0028_author_links': m0028,
  '0029_free_text_commitments': m0029,
  '0031_moderation': m0031,
  '0033_verifiable_credentials': m0033,
  '0034_oauth': m0034,
};
