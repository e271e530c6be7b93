// The ingest as the runner asks for it (runner/ingest-port.ts): the one module that sees both, so
// that neither imports the other. What starts a worker (hooks.server.ts, worker-main.ts) and what
// records a run (the record route, the demo) hand this to the runner.
import { ingestUpload } from './ingest/deploy';
import { buildGraphContent } from './ingest/graph-content';
import type { IngestPort } from './runner/ingest-port';

export const runnerIngest: IngestPort = { buildGraphContent, ingestUpload };
