// `npm start`: the main job on the embedded sandbox. Starts the local Certificate Service,
// runs the scripted flow through the shared core (and the connectors), prints a report, exits 0.
// `npm start -- --serve` keeps the sandbox running for a real n8n or `zapier-platform invoke`.
import { createSandbox } from '../sandbox';
import { runCoreFlow } from './core-flow';

async function main() {
  const serve = process.argv.includes('--serve');
  const portArg = process.argv.find((a) => a.startsWith('--port='));
  const sandbox = await createSandbox({ port: portArg ? Number(portArg.slice(7)) : serve ? 4010 : 0, timeScale: 0.001 });

  if (serve) {
    console.log(`Certificate Service sandbox listening.\n  Base URL: ${sandbox.baseUrl}\n  Demo API key: ${sandbox.apiKey}\n  Controls: ${sandbox.url}/__sandbox\nPress Ctrl+C to stop.`);
    process.on('SIGINT', () => void sandbox.close().then(() => process.exit(0)));
    return;
  }

  const report: string[] = [];
  const step = (label: string, detail: string) => report.push(`  ✓ ${label.padEnd(34)} ${detail}`);
  console.log(`Sandbox at ${sandbox.baseUrl}\n`);
  try {
    console.log('Shared core:');
    await runCoreFlow(sandbox, step);
    console.log(report.splice(0).join('\n'));
    const c = sandbox.controls.counters();
    console.log(`\nSandbox counters: ${c.requests.total} requests, ${c.quotaUsed} quota units used, ${c.deliveries.succeeded}/${c.deliveries.attempted} deliveries succeeded.`);
    console.log('\nAll flows passed.');
  } finally {
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  console.error(`\nFlow failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
