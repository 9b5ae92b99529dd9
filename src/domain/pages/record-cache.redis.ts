// Cache invalidation shared by every instance: a local invalidation is published on a Redis channel, and a message
// from another instance clears this one's cache.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { MemoryRecordCache } from './record-cache.js';

export const INVALIDATE_CHANNEL = 'credence:record-cache:invalidate';

export async function shareInvalidations(
  cache: MemoryRecordCache,
  publisher: Redis,
  subscriber: Redis,
  channel = INVALIDATE_CHANNEL,
): Promise<void> {
  const me = randomUUID();
  // Redis down at start must not stop the service: the subscription is made (again) whenever the connection is
  // ready, and a failure to make it now is not fatal.
  const subscribe = () => subscriber.subscribe(channel).catch(() => {});
  // Messages sent while this connection was down are lost: on every reconnection the local cache is dropped.
  let connectedBefore = subscriber.status === 'ready';
  subscriber.on('ready', () => {
    if (connectedBefore) cache.clearLocal();
    connectedBefore = true;
    void subscribe();
  });
  // Waits for the first subscription while Redis answers, but never more than 2 s.
  await Promise.race([subscribe(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  subscriber.on('message', (ch: string, from: string) => {
    if (ch === channel && from !== me) cache.clearLocal();
  });
  cache.onInvalidate = () => {
    // A lost message leaves another instance's cache stale until its next invalidation; log-free by design, the
    // publish is retried by ioredis's offline queue while reconnecting.
    void publisher.publish(channel, me).catch(() => {});
  };
}
