// Placeholder replaced below.
import type { Deps } from '../domain/deps.js';
export async function seedDemo(_deps: Deps, _log: (line: string) => void): Promise<void> {}
