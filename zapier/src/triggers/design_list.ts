import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { collect } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';

/** Designs are read-only and few; the dropdown gets them all (up to this many). */
export const MAX_DESIGNS = 500;

/** Powers the Design dropdown of Create Batch (`design_list.id.name`). */
export default defineTrigger({
  key: 'design_list',
  noun: 'Design',
  display: { label: 'New Design', description: 'Triggers when a new certificate design is available. Lists the designs for the Design dropdown.', hidden: true },
  operation: {
    type: 'polling',
    perform: withClient(async (client, _z: ZObject, _bundle: Bundle) => {
      const designs = await collect(client.iterateDesigns(), MAX_DESIGNS);
      // Design fields beyond the id are not documented; fall back to the id as the label.
      return designs.map((d) => ({ ...d, name: typeof d.name === 'string' && d.name ? d.name : d.id }));
    }),
    sample: { id: 'design_classic', name: 'Classic' },
    outputFields: [
      { key: 'id', label: 'Design ID', type: 'string' },
      { key: 'name', label: 'Design Name', type: 'string' },
    ],
  },
});
