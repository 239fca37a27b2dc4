// tools/list as this server sends it: each tool's name, title, description, annotations and
// its input and output JSON Schemas as the SDK makes them from zod, less what says nothing (a
// model pays for every character of the list on every turn):
// - "$schema" (draft-07 from zod): without it MCP reads 2020-12, and no keyword used here
//   means anything different there;
// - "additionalProperties": {}, "properties": {} and "propertyNames": {"type": "string"}: what
//   JSON allows anyway;
// - anyOf of bare types becomes one "type" array ({"type": ["string", "null"]});
// - "execution": {"taskSupport": "forbidden"}, which is what its absence means.
// tools.snapshot.json holds the result (npm run snapshot -w shared/mcp), checked by a test.
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';
import type { ToolDefinition } from './tool';

type Json = Record<string, unknown>;
const isPlain = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

export function compactSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compactSchema);
  if (!isPlain(value)) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$schema') continue;
    if (key === 'additionalProperties' && isPlain(v) && !Object.keys(v).length) continue;
    if (key === 'propertyNames' && isPlain(v) && Object.keys(v).length === 1 && v.type === 'string') continue;
    if (key === 'properties' && isPlain(v) && !Object.keys(v).length) continue;
    // Property names are data, not keywords: copy them as they are.
    out[key] = key === 'properties' && isPlain(v) ? Object.fromEntries(Object.entries(v).map(([k, s]) => [k, compactSchema(s)])) : compactSchema(v);
  }
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.every((s) => isPlain(s) && Object.keys(s).length === 1 && typeof s.type === 'string')) {
    delete out.anyOf;
    out.type = anyOf.map((s) => (s as Json).type);
  }
  return out;
}

export const schema = (shape: z.ZodObject<any>, pipeStrategy: 'input' | 'output') => compactSchema(toJsonSchemaCompat(shape, { strictUnions: true, pipeStrategy })) as Tool['inputSchema'];

/** The tools/list entries of these tools. */
export function toolListing(tools: ReadonlyArray<ToolDefinition<any>>): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: schema(z.object(t.input), 'input'),
    outputSchema: schema(t.output, 'output') as Tool['outputSchema'],
    annotations: t.annotations,
  }));
}
