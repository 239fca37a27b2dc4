import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { certificateView } from './views';

export default defineTool({
  name: 'find_certificate_by_email',
  title: 'Find a certificate by email in a batch',
  description:
    'Finds the certificate issued to an email address in one batch (case-insensitive). The API has no email search, so this reads the batch\'s certificates: 1 request per 100 certificates in it, no quota. ' +
    'There is no search across batches: that would read every batch in full (1 request per batch plus 1 per 100 certificates); ask which batch, or use list_batches and search the likely ones. ' +
    'Returns the certificate, or found: false after the whole batch was read.',
  input: {
    batchId: z.string().describe('The batch to look in.'),
    email: z.string().describe('The recipient\'s email address.'),
  },
  annotations: READ_ONLY,
  async run({ batchId, email }, { client }) {
    const cert = await client.findRecipientByEmail(batchId, email);
    return { data: cert ? { found: true, certificate: certificateView(cert) } : { found: false } };
  },
});
