// A wake-up shared by every instance: after a commit, a process publishes on a Redis channel and the others read
// the change log at once instead of at their next poll. Only a wake-up: a lost message costs at most one poll
// interval, because every process reads the log on its own timer anyway (follower.ts).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ChangeFollower } from './follower.js';

export const WAKE_CHANNEL = 'credence:changes:committed';

export async function shareWakeUps(follower: ChangeFollower, publisher: Redis, subscriber: Redis, channel = WAKE_CHANNEL): Promise<void> {
  const me = randomUUID();
  // Redis down at start must not stop the service: the subscription is made (again) whenever the connection is
  // ready, and waiting for it is bounded. Messages missed while disconnected cost at most one poll interval.
  const subscribe = () => subscriber.subscribe(channel).catch(() => {});
  subscriber.on('ready', () => void subscribe());
  await Promise.race([subscribe(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  subscriber.on('message', (ch: string, from: string) => {
    if (ch === channel && from !== me) void follower.catchUp();
  });
  follower.wake = () => {
    void publisher.publish(channel, me).catch(() => {});
  };
}
