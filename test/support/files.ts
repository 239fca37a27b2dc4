import * as fs from 'node:fs';
import * as path from 'node:path';

/** The newest modification time of a file, or of anything under a folder: tests rebuild a package only when its sources are newer. */
export function newestMtime(p: string): number {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}
