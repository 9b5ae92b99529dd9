// A real `credence serve` as a child process, for tests of what only a process shows (signals, files, ports).
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../scripts/cluster.js';

export const TSX = path.resolve('node_modules/.bin/tsx');
export const MAIN = path.resolve('src/main.ts');

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  /** Everything the process wrote, both streams. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
}

/** Start `credence serve` (own process group, so a signal reaches the server and not only tsx) and wait until it
 * says it is serving. */
export async function startServe(env: Record<string, string>, args: string[] = []): Promise<ServeProcess> {
  const port = await freePort();
  // Node itself with tsx's loader, not the tsx command: a signal then reaches the server with nothing in between.
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', ...args], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60_000);
    const poll = setInterval(() => {
      if (out.includes('serving')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
  return { child, port, output: () => out, exited };
}

/** Signal the server process itself. */
export function signal(p: ServeProcess, sig: NodeJS.Signals): void {
  p.child.kill(sig);
}

export async function killHard(p: ServeProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  try {
    process.kill(-p.child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  await p.exited;
}

/** Open a sign-up request (`body`: its JSON) and send all but the last byte: it stays in flight until `finish()`. */
export async function halfSentRequest(port: number, body: string): Promise<{ finish(): Promise<string> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  // The answer is whole when its JSON body has arrived (or the server closed the connection).
  const ended = new Promise<void>((resolve) => {
    socket.on('data', (d: Buffer) => {
      answer += d.toString();
      if (/\r\n\r\n\{.*\}$/s.test(answer)) resolve();
    });
    socket.once('close', () => resolve());
  });
  socket.write(`POST /api/v1/auth/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
  socket.write(body.slice(0, -1));
  return {
    async finish() {
      // write, not end: a client that half-closes its side gets its connection closed by Node's server.
      socket.write(body.slice(-1));
      await ended;
      socket.destroy();
      return answer;
    },
  };
}
