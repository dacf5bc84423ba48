// The baseline: plain node:http that reads the body and answers 202, as cheap as a collector can be.
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(202, { 'content-type': 'application/json' });
    response.end('{"accepted":1,"bots":0,"duplicates":0,"quarantined":0,"dropped":0}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
