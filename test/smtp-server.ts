// A real SMTP server for tests (the `smtp-server` package on a loopback port), keeping every message it accepts,
// parsed with `mailparser`. `mode` makes it misbehave: refuse connections with 421, reject recipients with 550, hold
// the answer to a message, or drop the connection while the message is being sent (a message is accepted only when its 250 is sent: a dropped one was never taken).
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type SmtpMode = 'accept' | 'refuse' | 'drop' | 'hold' | 'reject';

export interface ReceivedMail {
  to: string;
  messageId: string;
  subject: string;
  text: string;
  html: string;
  headers: ParsedMail['headers'];
  parsed: ParsedMail;
}

export class TestSmtp {
  mode: SmtpMode = 'accept';
  readonly received: ReceivedMail[] = [];
  /** Messages whose DATA arrived while the mode was `hold`: answered only by release(). */
  private held: (() => void)[] = [];
  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<TestSmtp> {
    let self: TestSmtp | null = null;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onConnect(_session, callback) {
        if (self!.mode === 'refuse') return callback(Object.assign(new Error('Service not available, try later'), { responseCode: 421 }));
        callback();
      },
      onRcptTo(address, _session, callback) {
        if (self!.mode === 'reject') return callback(Object.assign(new Error(`No such user: ${address.address}`), { responseCode: 550 }));
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const s = self!;
          if (s.mode === 'drop') {
            // The connection goes before the answer: the client cannot know, so it must try again.
            const connections = (server as unknown as { connections: Set<{ id: string; _socket: { destroy(): void } }> }).connections;
            for (const c of connections) if (c.id === session.id) c._socket.destroy();
            return;
          }
          const accept = () =>
            void simpleParser(Buffer.concat(chunks)).then((parsed) => {
              s.received.push({
                to: session.envelope.rcptTo.map((r) => r.address).join(','),
                messageId: parsed.messageId ?? '',
                subject: parsed.subject ?? '',
                text: parsed.text ?? '',
                html: typeof parsed.html === 'string' ? parsed.html : '',
                headers: parsed.headers,
                parsed,
              });
              callback();
            });
          if (s.mode === 'hold') s.held.push(accept);
          else accept();
        });
      },
    });
    server.on('error', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new TestSmtp(server, (server.server.address() as AddressInfo).port);
    return self;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to === address.toLowerCase());
  }

  /** How many messages wait in `hold` for their answer. */
  get holding(): number {
    return this.held.length;
  }

  /** Forget the held messages unanswered: their sender died before the 250, so they were never taken. */
  dropHeld(): void {
    this.held = [];
  }

  release(): void {
    for (const f of this.held.splice(0)) f();
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The token of the first link to `path` in a mail's text part. */
export function linkToken(mail: ReceivedMail, path: string): string {
  const m = new RegExp(`${path.replace(/[/?]/g, '\\$&')}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!m) throw new Error(`no ${path} link in: ${mail.text}`);
  return m[1]!;
}
