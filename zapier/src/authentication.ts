import type { Authentication } from 'zapier-platform-core';
import publisher from '../../publisher.json';
import { withClient } from './lib/client';

/** Where the README explains how to create an API key (publisher.json, bundled in by the build). */
export const AUTH_DOCS_URL = `${publisher.docsUrl}/zapier#authentication`;

export default {
  type: 'custom',
  fields: [
    {
      key: 'apiKey',
      label: 'API Key',
      type: 'password',
      required: true,
      helpText: `Create an API key in the Certificate Service web app under **Settings → API keys** and paste it here. The full key is shown only once, when it is created. [How to get an API key](${AUTH_DOCS_URL}).`,
    },
    {
      key: 'baseUrl',
      label: 'API Base URL',
      type: 'string',
      required: true,
      placeholder: 'https://certs.example.com/api/v1',
      helpText:
        'The address of your Certificate Service API, ending in `/api/v1`, for example `https://certs.example.com/api/v1`. It must use `https://`. If you leave off `/api/v1`, it is added for you.',
    },
  ],
  // POST /auth checks the key (and, by building the client, the base URL) and
  // returns {workspaceId, username}; the username labels the connection.
  test: withClient(async (client) => client.auth(), { authTest: true }),
  connectionLabel: '{{username}}',
} satisfies Authentication;
