// Reading request bodies and writing responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, validationError } from './errors';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export type Headers = Record<string, string>;

/** On every answer: a browser takes the declared type as it is, never sniffs JSON or text into HTML or a script. */
const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' };

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError('VALIDATION_ERROR', `The body is larger than ${MAX_BODY_BYTES} bytes.`, { field: 'body' }, 413));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * JSON bodies. A declared JSON type that does not parse is a 400; a body with a missing or
 * other type is accepted when it parses as JSON (lenient, like many real APIs), else 415.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  const declaredJson = !!contentType && /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());
  try {
    return JSON.parse(text);
  } catch {
    if (declaredJson) throw validationError('body', 'The request body is not valid JSON.');
    throw new ApiError(
      'VALIDATION_ERROR',
      `Unsupported body: send JSON with Content-Type: application/json (got ${contentType ? `"${contentType}"` : 'no Content-Type'} and a body that is not JSON).`,
      { field: 'body', contentType: contentType ?? null },
      415,
    );
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...NOSNIFF,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  res.writeHead(status, { ...headers, ...NOSNIFF });
  res.end();
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Headers = {}): void {
  res.writeHead(status, {
    ...headers,
    ...NOSNIFF,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
  });
  res.end(html);
}
