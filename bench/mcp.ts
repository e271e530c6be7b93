// An MCP trace over HTTP against the column-lineage read it stands beside: on the BUILT app with
// the 3000-model project (200,000 stored column edges), for a column of each of the column-lineage
// benchmark's three relations (components of about 10, 100 and 1000 direct edges), interleaved
// run by run: GET assets/column_lineage?asset_path=<relation> and POST mcp tools/call trace_column
// (both directions, default depth) on that relation's column, both with the same bearer token.
// The MCP request is one stateless JSON-RPC call, as a client's calls are after `initialize`.
import { backends, freshDatabase, QUICK, setupWorkspace, startApp, uploadTarget, Client } from './app';
import { metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject } from './projects';

const SIZE = QUICK ? { models: 500, edges: 20_000 } : { models: 3000, edges: 200_000 };
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 5 : 20));
const WS = 'bench';
const SCRIPT = 'f/bench/project';
const ACCEPT = 'application/json, text/event-stream';

async function timed(url: string, init: RequestInit): Promise<{ ms: number; status: number; text: string }> {
	const t0 = performance.now();
	const r = await fetch(url, init);
	const text = await r.text();
	return { ms: performance.now() - t0, status: r.status, text };
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const picks = [...project.meta.components].sort((a, b) => a.target - b.target);
	const rows: Row[] = [];
	const metrics: Metric[] = [];
	const ratios: BenchResult['ratios'] = [];
	for (const backend of backends()) {
		process.stderr.write(`mcp: ${backend}: starting the app and deploying …\n`);
		const db = await freshDatabase(backend, 'mcp');
		const app = await startApp(db);
		try {
			const client = await Client.login(app.url);
			await setupWorkspace(client, WS, 'bench', project.meta.database);
			await uploadTarget(client, WS, 'deploy', SCRIPT, project.target);
			const { token } = await client.post<{ token: string }>(`/api/w/${WS}/tokens`, { label: 'bench-mcp', scopes: [] });
			const auth = { authorization: `Bearer ${token}` };
			const cases = [];
			for (const p of picks) {
				const lineageUrl = `${app.url}/api/w/${WS}/assets/column_lineage?asset_path=${encodeURIComponent(p.assetPath)}`;
				const l = await timed(lineageUrl, { headers: auth });
				if (l.status !== 200) throw new Error(`column_lineage ${p.assetPath}: ${l.status} ${l.text.slice(0, 300)}`);
				const edges = JSON.parse(l.text).edges as { from_asset_path: string; from_column: string; to_asset_path: string; to_column: string }[];
				const e = edges.find((x) => x.to_asset_path === p.assetPath) ?? edges.find((x) => x.from_asset_path === p.assetPath);
				if (!e) throw new Error(`no edge touches ${p.assetPath}`);
				const column = e.to_asset_path === p.assetPath ? e.to_column : e.from_column;
				const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trace_column', arguments: { asset_path: p.assetPath, column } } });
				cases.push({ p, column, lineageUrl, body, http: [] as number[], mcp: [] as number[], listed: 0 });
			}
			for (let i = -2; i < RUNS; i++) {
				for (const c of cases) {
					const a = await timed(c.lineageUrl, { headers: auth });
					const m = await timed(`${app.url}/api/w/${WS}/mcp`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: ACCEPT }, body: c.body });
					if (a.status !== 200 || m.status !== 200) throw new Error(`run ${i}: column_lineage ${a.status}, mcp ${m.status} ${m.text.slice(0, 300)}`);
					const rpc = JSON.parse(m.text);
					if (rpc.error || rpc.result?.isError) throw new Error(`trace_column: ${JSON.stringify(rpc.error ?? rpc.result).slice(0, 300)}`);
					const trace = JSON.parse(rpc.result.content[0].text);
					c.listed = (trace.upstream?.columns.length ?? 0) + (trace.downstream?.columns.length ?? 0);
					if (i >= 0) {
						c.http.push(a.ms);
						c.mcp.push(m.ms);
					}
				}
			}
			for (const c of cases) {
				const h = stat(c.http);
				const m = stat(c.mcp);
				const ratio = m.median / h.median;
				rows.push({
					case: `${backend}: ${c.p.assetPath}.${c.column} (component of ${c.p.edges} edges; trace lists ${c.listed} columns)`,
					column_lineage_ms: `${h.median.toFixed(1)} [${h.min.toFixed(1)}–${h.max.toFixed(1)}]`,
					mcp_trace_ms: `${m.median.toFixed(1)} [${m.min.toFixed(1)}–${m.max.toFixed(1)}]`,
					ratio: ratio.toFixed(2)
				});
				ratios.push({ name: `mcp_trace_over_http_${c.p.target}_${backend}`, value: ratio, note: `p50 MCP trace_column / p50 GET column_lineage, ${c.p.edges}-edge component` });
			}
			// The figure: the middle relation (about 100 edges), the size column lineage's own goal is set at.
			const mid = cases[1];
			const value = stat(mid.mcp).median / stat(mid.http).median;
			metrics.push(
				metric('mcp_trace_over_http_ratio', value, 'ratio', backend, {
					goal: 1.5,
					note: `p50 of ${RUNS} interleaved runs, ${mid.p.edges}-edge component (${mid.listed} columns traced both ways); the other sizes are in details.json`
				})
			);
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	return {
		name: 'mcp',
		description: `MCP trace_column (streamable HTTP, one stateless call) vs GET assets/column_lineage for the same relation, ${SIZE.models} models / ${SIZE.edges} column edges`,
		rows,
		ratios,
		environment: { models: SIZE.models, column_edges: SIZE.edges, runs: RUNS },
		metrics
	};
}
