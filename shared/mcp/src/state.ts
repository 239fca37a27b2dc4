// Where certsvc keeps state that must outlive a process (not a cache: wiping it must be a
// choice). The SDK is getting a stateDir() with this same formula; this one goes when it lands.
import os from 'node:os';
import path from 'node:path';

/** $CERTSVC_STATE_DIR, else $XDG_STATE_HOME/certsvc, else ~/.local/state/certsvc. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CERTSVC_STATE_DIR?.trim()) return path.resolve(env.CERTSVC_STATE_DIR);
  if (env.XDG_STATE_HOME?.trim()) return path.join(path.resolve(env.XDG_STATE_HOME), 'certsvc');
  return path.join(os.homedir(), '.local', 'state', 'certsvc');
}
