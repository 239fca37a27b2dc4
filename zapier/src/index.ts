import zapier, { defineApp } from 'zapier-platform-core';
import packageJson from '../package.json';
import authentication from './authentication';
import creates from './creates';
import { befores } from './middleware';
import searches from './searches';
import triggers from './triggers';

// No afterResponse: the transport hands every response to the core, which maps
// errors once (see lib/errors.ts); a middleware throwing earlier would bypass
// the core's safe retries and "outcome unknown" reporting.
export default defineApp({
  version: packageJson.version,
  platformVersion: zapier.version,

  // Every request goes through z.request, which Zapier logs itself; its process-wide
  // patch of http.request (for logging other clients' calls) adds nothing here, and
  // its wrapper only understands request(options, callback).
  flags: { skipHttpPatch: true },

  authentication,
  beforeRequest: [...befores],

  triggers,
  creates,
  searches,
  searchOrCreates: {
    find_recipient: {
      key: 'find_recipient',
      display: {
        label: 'Find or Issue Certificate',
        description: 'Finds the certificate issued to an email address in a batch, or issues one if there is none.',
      },
      search: 'find_recipient',
      create: 'issue_certificate',
    },
  },
});
