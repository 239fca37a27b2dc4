// The SDK receiver of P9rs (p9-recover.ts), in a process of its own: Node's http server with the
// SDK's createNodeHandler on a fileStore, as an app would run it. Each event it runs is one line
// of RAN_LOG ({"occurrence":"<type> <recipient id>","deliveryId":…,"at":epoch ms}), written
// before the 200, so the log holds every run the sender saw answered.
// Env: PORT, SECRET (the subscription's signing secret), STORE (the fileStore's path), RAN_LOG.
import fs from 'node:fs';
import http from 'node:http';
import { createNodeHandler, fileStore } from '@certificate-service/sdk';

const need = (name: string) => process.env[name] ?? (process.stderr.write(`p9-sdk-receiver: ${name} is not set\n`), process.exit(2));
const log = need('RAN_LOG');
const handler = createNodeHandler({
  secret: need('SECRET'),
  store: fileStore(need('STORE')),
  onEvent: (event, delivery) => fs.appendFileSync(log, `${JSON.stringify({ occurrence: `${event.type} ${event.data.id}`, deliveryId: delivery.id, at: Date.now() })}\n`),
});
http.createServer((req, res) => void handler(req, res)).listen(Number(need('PORT')), '127.0.0.1', () => process.stdout.write('listening\n'));
