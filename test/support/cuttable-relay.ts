import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

/**
 * A TCP relay to the real Redis (127.0.0.1:6379) that can be cut (every
 * connection dropped and refused) and restored, and can hold Redis's replies
 * back (Redis has done the work; its answer is late).
 */
export class CuttableRelay {
  private readonly sockets = new Set<Socket>();
  private cut = false;
  private replyDelayMs = 0;
  private readonly server: Server = createServer((client) => {
    if (this.cut) return client.destroy();
    const upstream = connect(6379, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    // Replies in order, each passed on once it is replyDelayMs old.
    const held: { releaseAt: number; reply: Buffer }[] = [];
    const release = () => {
      while (held.length > 0 && held[0].releaseAt <= Date.now()) client.write(held.shift()!.reply);
      if (held.length > 0) setTimeout(release, held[0].releaseAt - Date.now());
    };
    upstream.on('data', (reply: Buffer) => {
      held.push({ releaseAt: Date.now() + this.replyDelayMs, reply });
      if (held.length === 1) release();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  down(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  up(): void {
    this.cut = false;
  }

  /** Holds every reply Redis sends from now on for `ms` before passing it on (0: at once again). */
  delayReplies(ms: number): void {
    this.replyDelayMs = ms;
  }

  close(): Promise<void> {
    this.down();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
