import * as net from 'node:net';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it), for a process or server to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function answers(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}

/** Runs `use` with a port that a server of this process holds on 127.0.0.1 (a busy port), then lets it go. */
export async function withBusyPort<T>(use: (port: number) => T | Promise<T>): Promise<T> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    return await use((holder.address() as net.AddressInfo).port);
  } finally {
    holder.close();
  }
}
