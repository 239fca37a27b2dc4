// A minimal JSON client over global fetch, for contract tests against the sandbox.
// Bodies are typed `any` on purpose: tests assert on the wire shape, field by field.

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface CallOptions {
  /** Sent as-is instead of JSON.stringify(body). */
  raw?: string;
  headers?: Record<string, string>;
  /** Override the client's key; null sends no Authorization header. */
  key?: string | null;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null,
  ) {}

  as(key: string | null): Api {
    return new Api(this.baseUrl, key);
  }

  async call(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<ApiResponse> {
    const key = opts.key === undefined ? this.key : opts.key;
    const headers: Record<string, string> = {};
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let payload: string | undefined = opts.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers: { ...headers, ...opts.headers }, body: payload });
    const text = await res.text();
    let parsed: any = undefined;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, opts?: CallOptions) {
    return this.call('GET', path, undefined, opts);
  }
  post(path: string, body?: unknown, opts?: CallOptions) {
    return this.call('POST', path, body, opts);
  }
  put(path: string, body?: unknown, opts?: CallOptions) {
    return this.call('PUT', path, body, opts);
  }
  patch(path: string, body?: unknown, opts?: CallOptions) {
    return this.call('PATCH', path, body, opts);
  }
  delete(path: string, opts?: CallOptions) {
    return this.call('DELETE', path, undefined, opts);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
