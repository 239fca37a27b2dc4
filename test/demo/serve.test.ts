// `npm start -- --serve` (its script after the build: tsx test/demo/start.ts --serve) on a
// port another process holds: exit 1, and the message says which flag picks another.
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

test('a busy port names --port', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as net.AddressInfo;
  try {
    const run = spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['test/demo/start.ts', '--serve', '--port', String(port)], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`npm start -- --serve failed: 127.0.0.1:${port} is already in use (another sandbox?): choose another port with --port, e.g. npm start -- --serve --port ${port + 1}`);
  } finally {
    holder.close();
  }
}, 60_000);
