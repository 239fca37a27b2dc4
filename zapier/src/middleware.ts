import type { BeforeRequestMiddleware } from 'zapier-platform-core';
import { apiKeyFrom, normaliseBaseUrl } from '@certificate-service/sdk/core';
import packageJson from '../package.json';

export const USER_AGENT = `certificate-service-zapier/${packageJson.version}`;

/** The origin of the configured API, or undefined when the base URL is not valid. */
function apiOrigin(baseUrl: unknown): string | undefined {
  try {
    return new URL(normaliseBaseUrl(baseUrl)).origin;
  } catch {
    return undefined;
  }
}

/**
 * Adds `Authorization: Bearer <API key>` (spec section 5) to requests for the
 * configured API only, so the key is never sent to any other host.
 */
export const addBearerToken: BeforeRequestMiddleware = (request, _z, bundle) => {
  const apiKey = apiKeyFrom(bundle.authData?.apiKey);
  const origin = apiOrigin(bundle.authData?.baseUrl);
  let target: string | undefined;
  try {
    target = new URL(request.url).origin;
  } catch {
    target = undefined;
  }
  if (origin && target === origin) {
    request.headers = { ...request.headers, 'User-Agent': USER_AGENT };
    if (apiKey) request.headers.Authorization = `Bearer ${apiKey}`;
  }
  return request;
};

export const befores = [addBearerToken];
