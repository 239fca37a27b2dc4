// Every tool, in the order tools/list shows them. One file per tool; the server registers
// what this list holds, minus what --tools and --read-only leave out.
import archiveBatch from './archive-batch';
import createBatch from './create-batch';
import deleteCertificate from './delete-certificate';
import deleteSubscription from './delete-subscription';
import doctor from './doctor';
import findByEmail from './find-by-email';
import findCertificate from './find-certificate';
import getBatch from './get-batch';
import issueCertificates from './issue-certificates';
import listBatches from './list-batches';
import listDesigns from './list-designs';
import listSubscriptions from './list-subscriptions';
import sendCertificate from './send-certificate';
import testSubscription from './test-subscription';
import unarchiveBatch from './unarchive-batch';
import updateCertificate from './update-certificate';
import type { ToolDefinition } from '../tool';

export const TOOLS: ReadonlyArray<ToolDefinition<any>> = [
  listBatches,
  getBatch,
  listDesigns,
  createBatch,
  archiveBatch,
  unarchiveBatch,
  issueCertificates,
  sendCertificate,
  findCertificate,
  findByEmail,
  updateCertificate,
  deleteCertificate,
  listSubscriptions,
  testSubscription,
  deleteSubscription,
  doctor,
];
