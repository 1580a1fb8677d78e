// The ceiling: the cheapest possible JSON answer from node:http on this machine.
// Run as a child process by run.ts with PORT set; listens on 127.0.0.1 only.
import { createServer } from 'node:http';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set');

const body = JSON.stringify({ status: 'ok' });
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(port, '127.0.0.1');

const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
