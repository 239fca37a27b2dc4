// Writes tools.snapshot.json: every tool's tools/list entry (name, description, schemas,
// annotations) as the server sends it, and the size of the default and --read-only lists in
// characters (JSON of the tools/list result) and in tokens (o200k_base, js-tiktoken's bundled
// vocabulary). test/mcp/tools.test.ts fails when the file is stale, so a description change
// shows in review. Run: npm run snapshot -w shared/mcp
import fs from 'node:fs';
import path from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { toolListing } from '../src/listing';
import { selectTools } from '../src/server';

export const SNAPSHOT = path.join(__dirname, '../tools.snapshot.json');

export function snapshot(): string {
  const encoder = getEncoding('o200k_base');
  const size = (readOnly: boolean) => {
    const json = JSON.stringify({ tools: toolListing(selectTools({ readOnly })) });
    return { characters: json.length, o200kTokens: encoder.encode(json).length };
  };
  return `${JSON.stringify({ sizes: { default: size(false), readOnly: size(true) }, tools: toolListing(selectTools()) }, null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(SNAPSHOT, snapshot());
  process.stdout.write(`wrote ${SNAPSHOT}\n`);
}
