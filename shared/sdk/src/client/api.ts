import type { Decoder, DecodedPage } from '../decode';
import type { SecretSet } from '../redact';
import type { CallSpec } from '../request';
import type { Page } from '../types';

/** What the resource modules need of the client: its one call path and what it must keep secret. */
export interface Api {
  call<T>(spec: CallSpec, decode: Decoder<T>): Promise<T>;
  secrets: SecretSet;
}

/** A decoded page as callers see it: the items and the next cursor. */
export const page = <T>({ items, nextCursor }: DecodedPage<T>): Page<T> => ({ items, nextCursor });
