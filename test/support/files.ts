import * as fs from 'node:fs';
import * as path from 'node:path';

/** The newest modification time under `dir`: tests rebuild a package only when its sources are newer. */
export function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}
