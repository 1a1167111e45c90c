import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

/** A TCP relay to the real Redis (127.0.0.1:6379) that can be cut (every connection dropped and refused) and restored. */
export class CuttableRelay {
  private readonly sockets = new Set<Socket>();
  private cut = false;
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
    client.pipe(upstream).pipe(client);
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

  close(): Promise<void> {
    this.down();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
