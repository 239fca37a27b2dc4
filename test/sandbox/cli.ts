// Runs the sandbox standalone: `npx tsx test/sandbox/cli.ts --port 4010`.
// Flags: --port N, --host H, --no-rate-limit, --rate-limit N[/windowMs], --quota N,
//        --time-scale X, --delivery-concurrency N, --list-shape S, --no-seed
import { createSandbox, type SandboxOptions, type ListShape } from './index';

function parseArgs(argv: string[]): SandboxOptions {
  const o: SandboxOptions = { port: 4010 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--port':
        o.port = Number(value());
        break;
      case '--host':
        o.host = value();
        break;
      case '--no-rate-limit':
        o.rateLimit = false;
        break;
      case '--rate-limit': {
        const [limit, windowMs] = value().split('/').map(Number);
        o.rateLimit = { limit, windowMs: windowMs || 60_000 };
        break;
      }
      case '--quota':
        o.quota = Number(value());
        break;
      case '--time-scale':
        o.timeScale = Number(value());
        break;
      case '--delivery-concurrency':
        o.deliveryConcurrency = Number(value());
        break;
      case '--list-shape':
        o.listShape = value() as ListShape;
        break;
      case '--no-seed':
        o.seed = false;
        break;
      case '--help':
      case '-h':
        console.log('Usage: tsx test/sandbox/cli.ts [--port 4010] [--host 127.0.0.1] [--no-rate-limit | --rate-limit 120/60000] [--quota 10000] [--time-scale 1] [--delivery-concurrency N] [--list-shape default] [--no-seed]');
        process.exit(0);
      default:
        throw new Error(`Unknown flag ${flag} (try --help)`);
    }
  }
  return o;
}

async function main(): Promise<void> {
  const sandbox = await createSandbox(parseArgs(process.argv.slice(2)));
  console.log(`Certificate Service sandbox listening`);
  console.log(`  base URL : ${sandbox.baseUrl}`);
  console.log(`  API key  : ${sandbox.apiKey ?? '(none: started with --no-seed)'}`);
  console.log(`  viewer   : ${sandbox.url}/v/<shareToken>`);
  console.log(`  controls : ${sandbox.url}/__sandbox`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
