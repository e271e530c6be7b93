// What one request to the OpenLineage receiver costs the server's CPU, by how far it gets, one
// sender at a time against the BUILT app on Postgres (BENCH_DATABASE_URL): a bare Node HTTP
// server answering the same body (the floor of a request on this machine), a 404 through
// SvelteKit, the receiver refusing the Content-Type (SvelteKit, the hooks, the token and grants),
// an event the schema refuses, and an event stored (a batch of one). Not part of `npm run bench`:
// `npx tsx bench/openlineage-request-cost.ts` (N requests each, default 1500; ONLY_FULL=1 only the
// stored events, e.g. under BENCH_APP_NODE_ARGS=--cpu-prof). Figures in docs/openlineage.md.
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client, cpuSeconds, freshDatabase, setupWorkspace, startApp } from './app';
import { FIXTURES_DIR } from './lib';

const N = Number(process.env.N ?? 1500);
const body = (runId: string, type: string) => {
	const fields: Record<string, unknown> = {};
	for (let i = 0; i < 20; i++) fields[`out_${i}`] = { inputFields: [{ namespace: 's3://in', name: 'in/x', field: `col_${i}`, transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }] };
	return JSON.stringify({ eventType: type, eventTime: new Date().toISOString(), producer: 'https://x/y', schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent', run: { runId }, job: { namespace: 'airflow://bench', name: `dag.task_${runId.charCodeAt(0) % 20}` }, inputs: [{ namespace: 's3://in', name: 'in/x' }], outputs: [{ namespace: 's3://out', name: 'o/x', facets: { columnLineage: { _producer: 'https://x/y', _schemaURL: 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet', fields } } }] });
};
async function measure(label: string, pid: number, one: (i: number) => Promise<number>) {
	for (let i = 0; i < 100; i++) await one(i);
	const c0 = cpuSeconds(pid);
	const t0 = performance.now();
	for (let i = 0; i < N; i++) {
		const s = await one(i);
		if (i === 0 && s >= 500) throw new Error(`${label}: ${s}`);
	}
	const ms = performance.now() - t0;
	console.log(`${label}: ${((cpuSeconds(pid) - c0) * 1000 / N).toFixed(2)} ms CPU/request, ${(ms / N).toFixed(2)} ms wall/request`);
}
const db = await freshDatabase('postgres', 'olcost');
const app = await startApp(db, { TRIBUTARY_OPENLINEAGE_RATE: '1000000', TRIBUTARY_OPENLINEAGE_SCHEMAS: path.join(FIXTURES_DIR, '..', 'reference', 'openlineage') });
try {
	const c = await Client.login(app.url);
	await setupWorkspace(c, 'bench', 'bench', 'db');
	await c.post(`/api/w/bench/openlineage/namespaces`, { namespace: 'airflow://bench', folder: 'bench' });
	const token = (await c.post<{ token: string }>(`/api/w/bench/tokens`, { label: 's', scopes: ['lineage:write'] })).token;
	const url = `${app.url}/api/w/bench/openlineage/api/v1/lineage`;
	const post = async (b: string, type = 'application/json') => {
		const r = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: b });
		await r.text();
		return r.status;
	};
	if (!process.env.ONLY_FULL) {
	const bare = spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>{let n=0;q.on('data',d=>n+=d.length);q.on('end',()=>{s.writeHead(201,{'content-type':'application/json'});s.end('{"status":"stored"}')})}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
	const port = await new Promise<number>((r) => bare.stdout!.once('data', (d) => r(Number(String(d)))));
	const ev = body(randomUUID(), 'COMPLETE');
	await measure('bare node http server, same body', bare.pid!, async () => { const r = await fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: ev }); await r.text(); return r.status; });
	bare.kill();
	await measure('kit: GET unknown route, no credentials (404)', app.pid, async () => { const r = await fetch(`${app.url}/api/nothing`); await r.text(); return 0; });
	await measure('kit: receiver, token, wrong content type (415)', app.pid, async () => { const s = await post(ev, 'text/plain'); return s === 415 ? 0 : s; });
	await measure('kit: receiver, token, schema-invalid event (400)', app.pid, async () => { const s = await post('{"eventType":"START","run":{"runId":"x"},"job":{}}'); return s === 400 ? 0 : s; });
	}
	let n = 0;
	const runIds = Array.from({ length: N + 200 }, () => randomUUID());
	await measure('kit: receiver, full event (201)', app.pid, async (i) => { const s = await post(body(runIds[n++ % runIds.length], i % 2 ? 'COMPLETE' : 'START')); return s === 201 ? 0 : s; });
} finally {
	await app.stop();
	await db.drop();
}
