import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where the SDK and its tools keep state that must outlive a process (in-flight markers; the MCP
 * server's confirmation key and used tokens): `$CERTSVC_STATE_DIR`, else `$XDG_STATE_HOME/certsvc`,
 * else `~/.local/state/certsvc`. XDG *state*, not a cache: losing it may let a retry issue twice.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CERTSVC_STATE_DIR?.trim()) return path.resolve(env.CERTSVC_STATE_DIR.trim());
  if (env.XDG_STATE_HOME?.trim()) return path.join(path.resolve(env.XDG_STATE_HOME.trim()), 'certsvc');
  return path.join(os.homedir(), '.local', 'state', 'certsvc');
}
