// One real fixture manifest (the largest v12 by bytes) ingested into a fresh PGlite. Prints JSON.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../src/lib/server/db';
import { ingestUpload } from '../../src/lib/server/ingest/deploy';
import { insertAccount } from '../../src/lib/server/repo/accounts';
import { createWorkspace } from '../../src/lib/server/repo/workspaces';

const { values } = parseArgs({ options: { manifest: { type: 'string' } } });
const database = await openDatabase({ dataDir: 'memory://' });
await insertAccount(database, { id: 'a', username: 'bench', passwordHash: null, instanceAdmin: true });
await createWorkspace(database, { id: 'bench', name: 'Bench', creator: { accountId: 'a', username: 'bench' } });
const bytes = new Uint8Array(readFileSync(values.manifest!));
const baseline = process.resourceUsage().maxRSS / 1024;
const t0 = performance.now();
const a = await ingestUpload(database, { workspace: 'bench', path: 'f/bench/fixture', kind: 'deploy', username: 'bench', manifest: { name: 'manifest.json', bytes } });
const ms = performance.now() - t0;
const peak = process.resourceUsage().maxRSS / 1024;
await database.close();
process.stdout.write(`${JSON.stringify({ ms, nodes: a.nodes, edges: a.edges, peakRssMb: peak, baselineRssMb: baseline })}\n`);
