// shared/mcp/server.json against the MCP registry's server.json schema 2025-12-11, with ajv.
// No npm package reachable here ships that schema (the official publisher, mcp-publisher, is a Go
// binary, not on npm; the registry's schema workspace is a private package), so SCHEMA below is
// written from the published schema's text: every constraint it places on the fields server.json uses
// (ServerDetail, Repository, Package, the stdio transport, environment variables), as draft-07
// like the original. Proven: server.json meets those constraints, and each mutation below breaks
// one of them. Not proven: the fields server.json does not use (remotes, icons, arguments,
// other transports), and the registry's checks outside the schema (that the npm package exists
// and its mcpName matches, which test/release/pack.process.test.ts checks from our side).
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const SCHEMA_ID = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $ref: '#/definitions/ServerDetail',
  definitions: {
    ServerDetail: {
      type: 'object',
      required: ['name', 'description', 'version'],
      properties: {
        $schema: { type: 'string', format: 'uri' },
        name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
        title: { type: 'string', minLength: 1, maxLength: 100 },
        description: { type: 'string', minLength: 1, maxLength: 100 },
        version: { type: 'string', maxLength: 255 },
        websiteUrl: { type: 'string', format: 'uri' },
        repository: { $ref: '#/definitions/Repository' },
        packages: { type: 'array', items: { $ref: '#/definitions/Package' } },
      },
    },
    Repository: {
      type: 'object',
      required: ['url', 'source'],
      properties: { url: { type: 'string', format: 'uri' }, source: { type: 'string' }, id: { type: 'string' }, subfolder: { type: 'string' } },
    },
    Package: {
      type: 'object',
      required: ['registryType', 'identifier', 'transport'],
      properties: {
        registryType: { type: 'string' },
        registryBaseUrl: { type: 'string', format: 'uri' },
        identifier: { type: 'string' },
        version: { type: 'string', minLength: 1, not: { const: 'latest' } },
        fileSha256: { type: 'string', pattern: '^[a-f0-9]{64}$' },
        runtimeHint: { type: 'string' },
        // Only stdio is used here; the schema's other local transports (streamable-http, sse) need a url.
        transport: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['stdio'] } } },
        environmentVariables: { type: 'array', items: { $ref: '#/definitions/KeyValueInput' } },
      },
    },
    KeyValueInput: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        isRequired: { type: 'boolean' },
        isSecret: { type: 'boolean' },
        format: { type: 'string', enum: ['string', 'number', 'boolean', 'filepath'] },
        value: { type: 'string' },
        default: { type: 'string' },
        placeholder: { type: 'string' },
        choices: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

const serverJson = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../shared/mcp/server.json'), 'utf8')) as Record<string, any>;
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(SCHEMA);
const errors = (doc: unknown) => (validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`));

test('server.json declares the 2025-12-11 schema and meets its constraints', () => {
  expect(serverJson.$schema).toBe(SCHEMA_ID);
  expect(errors(serverJson)).toEqual([]);
});

test('each constraint the test checks can fail: mutated copies of server.json are refused', () => {
  const mutated = (change: (doc: Record<string, any>) => void) => {
    const doc = structuredClone(serverJson);
    change(doc);
    return errors(doc);
  };
  expect(mutated((d) => (d.description = 'x'.repeat(101)))).toEqual(['/description must NOT have more than 100 characters']);
  expect(mutated((d) => (d.name = 'io.github.certificate-service/certificate/service'))).toEqual([expect.stringMatching(/^\/name must match pattern/)]);
  expect(mutated((d) => delete d.version)).toEqual(["/ must have required property 'version'"]);
  expect(mutated((d) => (d.packages[0].version = 'latest'))).toEqual(['/packages/0/version must NOT be valid']);
  expect(mutated((d) => delete d.packages[0].transport)).toEqual(["/packages/0 must have required property 'transport'"]);
  expect(mutated((d) => (d.packages[0].environmentVariables[0].format = 'secret'))).toEqual(['/packages/0/environmentVariables/0/format must be equal to one of the allowed values']);
  expect(mutated((d) => delete d.repository.source)).toEqual(["/repository must have required property 'source'"]);
  expect(mutated((d) => (d.repository.url = 'not a url'))).toEqual(['/repository/url must match format "uri"']);
});
