import type { IncomingMessage } from 'node:http';
import type { SandboxContext } from '../context';
import type { Route } from '../router';
import type { WorkspaceRecord } from '../store';

/** What an API handler sees: the authenticated workspace, the query and the parsed body. */
export interface ApiRequest {
  sb: SandboxContext;
  ws: WorkspaceRecord;
  query: URLSearchParams;
  body: unknown;
  req: IncomingMessage;
}

export type ApiRoute = Route<ApiRequest>;
