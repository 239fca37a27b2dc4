// The sandbox a test file runs against: started before the file's tests (after the built bins,
// for a file that spawns them), closed after them.
import { createSandbox, type Sandbox, type SandboxOptions } from '@certificate-service/sandbox';
import { ensureBuilt } from './built';

/** The file's seeded sandbox, there (as `world.sb`) once `beforeAll` has run. */
export function sandboxWorld(options: SandboxOptions & { seed?: true } = {}, { built = false } = {}): { sb: Sandbox } {
  const world = {} as { sb: Sandbox };
  beforeAll(async () => {
    if (built) await ensureBuilt();
    world.sb = await createSandbox(options);
  }, 120_000);
  afterAll(() => world.sb?.close());
  return world;
}
