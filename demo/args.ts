// `npm start` flags. The sandbox's port may be given as `--port 4011` or `--port=4011`.
export function portFrom(argv: readonly string[], fallback: number): number {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  if (i < 0) return fallback;
  const raw = argv[i].includes('=') ? argv[i].slice('--port='.length) : argv[i + 1];
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port takes a port number from 0 to 65535 (got ${raw ?? 'nothing'})`);
  return port;
}
