// A free local port (a throwaway Postgres for `manette test`, and the tests' servers).
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something on this machine already listens on `port` (for `host`, as the server will bind it). */
export function portInUse(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => {
      // `::` where IPv6 is unavailable: the server falls back to 0.0.0.0, so does the check.
      if (host === '::' && (err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL')) resolve(portInUse(port, '0.0.0.0'));
      else resolve(err.code === 'EADDRINUSE' || err.code === 'EACCES');
    });
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(false)));
  });
}
