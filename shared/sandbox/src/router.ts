// A tiny path router: `/batches/:id/recipients` style patterns, first match wins, so
// static routes are listed before parameterised ones with the same shape.

export interface Reply {
  status: number;
  /** Undefined = empty body (204). */
  body?: unknown;
}

export interface Route<C> {
  method: string;
  pattern: string;
  handler: (c: C, params: Record<string, string>) => Reply | Promise<Reply>;
}

interface Compiled<C> {
  route: Route<C>;
  segments: string[];
}

export interface Match<C> {
  route: Route<C>;
  params: Record<string, string>;
}

export class Router<C> {
  private readonly compiled: Compiled<C>[];

  constructor(routes: Route<C>[]) {
    this.compiled = routes.map((route) => ({ route, segments: split(route.pattern) }));
  }

  match(method: string, path: string): Match<C> | null {
    const parts = split(path);
    for (const { route, segments } of this.compiled) {
      if (route.method !== method || segments.length !== parts.length) continue;
      const params = matchSegments(segments, parts);
      if (params) return { route, params };
    }
    return null;
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.startsWith(':')) {
      try {
        params[seg.slice(1)] = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
    } else if (seg !== parts[i]) return null;
  }
  return params;
}
