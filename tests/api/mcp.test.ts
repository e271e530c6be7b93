// The MCP server through the official SDK's client, on both databases: over streamable HTTP
// into the real route, and over stdio through `tributary mcp` against a real HTTP server. Every
// tool's gate (an outsider, a folder reader, a scoped token), protocol errors for unknown tools,
// bad and oversized arguments, and bounded answers.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { fitAnswer, MAX_STRING_CHARS } from '../../src/lib/server/mcp/bound';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { startBridge } from '../support/http-bridge';
import { buildLineageWorld, content, deployGraph, hex, login, node, SHOP, WS, type LineageWorld } from '../support/lineage-world';
import { sql } from 'drizzle-orm';
import { callJson, mcpClient } from '../support/mcp';

const RAW = 'main/analytics/raw_orders';
const O = 'main/analytics/orders';
const L = 'main/finance/ledger';
const TOOL_NAMES = ['column_impact', 'diff', 'get_asset', 'run_status', 'search_assets', 'trace_column'];

describe('bounded answers', () => {
	it('cuts long strings and halves the longest list until the answer fits, saying what was cut', () => {
		const big = { items: Array.from({ length: 5000 }, (_, i) => ({ name: `column_${i}`, depth: i })), sql: 'x'.repeat(MAX_STRING_CHARS + 10), kept: 'small' };
		const text = fitAnswer(big, 20_000);
		expect(text.length).toBeLessThanOrEqual(20_000);
		const back = JSON.parse(text);
		expect(back.kept).toBe('small');
		expect(back.sql.length).toBe(MAX_STRING_CHARS);
		expect(back.items.length).toBeLessThan(5000);
		expect(back.items[0]).toEqual({ name: 'column_0', depth: 0 });
		expect(back.truncated.items).toMatch(new RegExp(`^${back.items.length} of 5000 items listed`));
		expect(back.truncated.sql).toMatch(/cut to 8000 of 8010 characters/);
		// An answer within the bound is untouched.
		expect(JSON.parse(fitAnswer({ a: [1, 2, 3] }))).toEqual({ a: [1, 2, 3] });
	});
});

describeFixtures('the MCP server', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;
		const clients: Client[] = [];
		const connect = async (api: ApiClient) => {
			const c = await mcpClient(api, WS);
			clients.push(c);
			return c;
		};
		const protocolError = async (p: Promise<unknown>): Promise<McpError> => {
			const e = await p.then(
				() => null,
				(x) => x
			);
			expect(e).toBeInstanceOf(McpError);
			return e as McpError;
		};

		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
		});
		afterAll(async () => {
			for (const c of clients) await c.close().catch(() => {});
			w?.restoreEnv();
			await database?.close();
		});

		it('lists six tools, each with a JSON schema for its arguments', async () => {
			const c = await connect(w.c.alice);
			const { tools } = await c.listTools();
			expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
			for (const t of tools) {
				expect(t.inputSchema.type).toBe('object');
				expect((t.inputSchema as { additionalProperties?: boolean }).additionalProperties).toBe(false);
				expect(t.description!.length).toBeGreaterThan(40);
			}
		});

		it('an outsider, a stranger and a token of another workspace get nothing: the 404 or 401 of every read', async () => {
			expect((await w.c.root.post('/api/workspaces', { id: 'elsewhere', name: 'Elsewhere' })).status).toBe(201);
			expect((await w.c.root.post('/api/w/elsewhere/users', { username: 'olga', password: 'olga-password-1', is_admin: true })).status).toBe(201);
			const olga = await login('olga');
			const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
			const accept = { accept: 'application/json, text/event-stream' };
			const out = await olga.post(`/api/w/${WS}/mcp`, init, { headers: accept });
			expect(out.status).toBe(404);
			expect(JSON.stringify(out.body)).not.toMatch(/orders|ledger|tool/);
			const anon = await new ApiClient().post(`/api/w/${WS}/mcp`, init, { headers: accept });
			expect(anon.status).toBe(401);
			const other = await olga.post('/api/w/elsewhere/tokens', { label: 'x', scopes: [] });
			const foreign = new ApiClient().withBearer(other.body.token);
			expect((await foreign.post(`/api/w/${WS}/mcp`, init, { headers: accept })).status).toBe(404);
			// And the SDK's own client fails to connect at all.
			await expect(mcpClient(olga, WS)).rejects.toThrow();
		});

		it('search_assets: the selector grammar; a folder reader never sees the name of what is hidden', async () => {
			const admin = await callJson(await connect(w.c.wsadmin), 'search_assets', { selector: `orders+` });
			const paths = admin.body.assets.map((a: any) => a.path);
			expect(paths).toContain(`dbt://${O}`);
			expect(paths).toContain(`dbt://${L}`);
			expect(paths).toContain('f/analytics/report');
			expect(admin.body.read_as).toBe('selector');
			const alice = await callJson(await connect(w.c.alice), 'search_assets', { selector: '*' });
			expect(alice.body.assets.map((a: any) => a.path)).toContain(`dbt://${O}`);
			expect(alice.text).not.toContain('ledger');
			expect(alice.text).not.toContain('finance');
			expect(alice.body.hidden).toBeGreaterThan(0);
			const carol = await callJson(await connect(w.c.carol), 'search_assets', { selector: 'ledger' });
			expect(carol.body.assets.map((a: any) => a.path)).toContain(`dbt://${L}`);
			expect(carol.text).not.toContain('f/analytics/report');
			const bob = await callJson(await connect(w.c.bob), 'search_assets', { selector: '*' });
			expect(bob.body.assets).toEqual([]);
			// A plain word matching nothing by dbt's rules is looked up by name; a limit cuts and says so.
			const named = await callJson(await connect(w.c.wsadmin), 'search_assets', { selector: 'ord' });
			expect(named.body.read_as).toBe('name search');
			const cut = await callJson(await connect(w.c.wsadmin), 'search_assets', { selector: '*', limit: 2 });
			expect(cut.body.assets).toHaveLength(2);
			expect(cut.body.truncated).toMatch(/more not listed \(limit 2\)/);
		});

		it('get_asset: the SQL and tests for a reader of the project, nothing for one who is not', async () => {
			const shop = await callJson(await connect(w.c.alice), 'get_asset', { asset_path: `dbt://${O}` });
			expect(shop.body.found).toBe(true);
			expect(shop.body.unique_id).toBe('model.shop.orders');
			expect(shop.body.authored).toBe(true);
			expect(shop.body.data_tests.length).toBe(1);
			const bob = await callJson(await connect(w.c.bob), 'get_asset', { asset_path: O });
			expect(bob.body.found).toBe(false);
			expect(bob.text).not.toContain('model.shop');
			const carol = await callJson(await connect(w.c.carol), 'get_asset', { asset_path: L });
			expect(carol.body.found).toBe(true);
		});

		it('trace_column: up and down, through the producer, to a depth; withheld relations counted, never named', async () => {
			const admin = await callJson(await connect(w.c.wsadmin), 'trace_column', { asset_path: `dbt://${RAW}`, column: 'id' });
			const down = admin.body.downstream.columns.map((c: any) => `${c.kind}:${c.asset_path}.${c.column}@${c.depth}`);
			expect(down).toEqual([`dbt:${O}.order_id@1`, `dbt:${L}.order_ref@2`, 'ducklake:main/report.order_ref@2']);
			expect(admin.body.downstream.columns[2].via).toEqual(['f/analytics/report']);
			expect(admin.body.upstream.columns).toEqual([]);
			const shallow = await callJson(await connect(w.c.wsadmin), 'trace_column', { asset_path: RAW, column: 'id', direction: 'downstream', depth: 1 });
			expect(shallow.body.downstream.columns.map((c: any) => c.asset_path)).toEqual([O]);
			expect(shallow.body.downstream.deeper).toBe(2);
			expect(shallow.body.upstream).toBeUndefined();
			const up = await callJson(await connect(w.c.wsadmin), 'trace_column', { asset_path: L, column: 'order_ref', direction: 'upstream' });
			expect(up.body.upstream.columns.map((c: any) => c.asset_path)).toEqual([O, RAW]);
			// alice reads analytics, not finance: the ledger is neither listed nor named.
			const alice = await callJson(await connect(w.c.alice), 'trace_column', { asset_path: RAW, column: 'id' });
			expect(alice.body.downstream.columns.map((c: any) => c.asset_path)).toEqual([O, 'main/report']);
			expect(alice.text).not.toContain('ledger');
			const bob = await callJson(await connect(w.c.bob), 'trace_column', { asset_path: RAW, column: 'id' });
			expect(bob.body.downstream.columns).toEqual([]);
		});

		it('column_impact: what the HTTP read answers, under the token: a scoped token sees only its project', async () => {
			const http = await w.c.wsadmin.get(`/api/w/${WS}/assets/column_impact?asset_path=${RAW}&column=id`);
			const mcp = await callJson(await connect(w.c.wsadmin), 'column_impact', { asset_path: RAW, column: 'id' });
			expect(mcp.body.columns).toEqual(http.body.columns);
			expect(mcp.body.withheld).toBe(http.body.withheld);
			const scoped = await w.token('alice', ['assets:read', 'scripts:read:f/analytics/shop']);
			const s = await callJson(await connect(scoped), 'column_impact', { asset_path: RAW, column: 'id' });
			expect(s.body.columns.map((c: any) => c.asset_path)).toEqual([O]);
			expect(s.text).not.toContain('main/report');
			// A token narrowed to assets under finance: the analytics relations are withheld, counted.
			const narrow = await w.token('wsadmin', ['assets:read:main/analytics/*', 'scripts:read']);
			const n = await callJson(await connect(narrow), 'column_impact', { asset_path: RAW, column: 'id' });
			expect(n.body.columns.map((c: any) => c.asset_path)).toEqual([O]);
			expect(n.body.withheld).toBe(2);
			expect(n.text).not.toContain('ledger');
			// Without assets:read: refused as the HTTP read refuses, as a tool error.
			const noAssets = await w.token('alice', ['scripts:read']);
			const r = await callJson(await connect(noAssets), 'column_impact', { asset_path: RAW, column: 'id' });
			expect(r.error).toMatch(/^403: this token lacks the scope assets:read/);
			for (const tool of ['search_assets', 'trace_column'] as const) {
				const e = await callJson(await connect(noAssets), tool, tool === 'search_assets' ? { selector: '*' } : { asset_path: RAW, column: 'id' });
				expect(e.error).toMatch(/assets:read/);
			}
		});

		it('diff: two refs with the classification; a caller who may not read the project learns nothing', async () => {
			const d = await callJson(await connect(w.c.alice), 'diff', { path: SHOP, from: hex(w.hashes.shopV1), to: hex(w.hashes.shopV2) });
			expect(d.body.models.removed).toEqual(expect.arrayContaining(['model.shop.stock', 'model.shop.stock_daily']));
			expect(d.body).toHaveProperty('classification');
			const http = await w.c.alice.get(`/api/w/${WS}/dbt/diff?path=${SHOP}&from=${hex(w.hashes.shopV1)}&to=${hex(w.hashes.shopV2)}`);
			expect(d.body).toEqual(JSON.parse(JSON.stringify(http.body)));
			const bob = await callJson(await connect(w.c.bob), 'diff', { path: SHOP, to: 'latest' });
			expect(bob.error).toMatch(/^404: no such version/);
		});

		it('run_status: a run for who may read it; another member is refused as over HTTP', async () => {
			const r = await callJson(await connect(w.c.alice), 'run_status', { job_id: w.jobs.RUN1 });
			expect(r.body.id).toBe(w.jobs.RUN1);
			expect(r.body.status).toBe('success');
			expect(r.body.progress).toEqual({ total: 0, by_status: {}, items: [] });
			expect(r.body).not.toHaveProperty('logs');
			const carol = await callJson(await connect(w.c.carol), 'run_status', { job_id: w.jobs.RUN1 });
			expect(carol.error).toMatch(/^40[34]: /);
			const http = await w.c.carol.get(`/api/w/${WS}/jobs/get/${w.jobs.RUN1}`);
			expect(carol.error).toBe(`${http.status}: ${http.body.error}`);
			const noJobs = await w.token('alice', ['assets:read']);
			expect((await callJson(await connect(noJobs), 'run_status', { job_id: w.jobs.RUN1 })).error).toMatch(/jobs:read/);
		});

		it("resources: a summary of each project the caller can see, and no other's", async () => {
			const alice = await connect(w.c.alice);
			const { resources } = await alice.listResources();
			const uris = resources.map((r) => r.uri).sort();
			expect(uris).toEqual(['tributary://project/f/analytics/jaffle', 'tributary://project/f/analytics/shop']);
			const shop = await alice.readResource({ uri: 'tributary://project/f/analytics/shop' });
			const text = (shop.contents[0] as { text: string }).text;
			expect(text).toContain('# f/analytics/shop');
			expect(text).toContain('| models | 2 |');
			expect(text).toContain('| data tests | 1 |');
			expect(text).toContain(hex(w.hashes.shopV2));
			for (const uri of ['tributary://project/f/finance/ledger', 'tributary://project/f/nope/nope', 'file:///etc/passwd']) {
				const e = await protocolError(alice.readResource({ uri }));
				expect(e.code).toBe(-32002);
				expect(e.message).toContain('no such resource');
			}
			expect((await (await connect(w.c.carol)).listResources()).resources.map((r) => r.uri)).toEqual(['tributary://project/f/finance/ledger']);
			expect((await (await connect(w.c.bob)).listResources()).resources).toEqual([]);
			const noAssets = await connect(await w.token('alice', ['scripts:read']));
			expect((await protocolError(noAssets.listResources())).message).toMatch(/403: this token lacks the scope assets:read/);
		});

		it('a narrow token (one project, its relations, its runs: what a share link opens) sees exactly that through every tool', async () => {
			const narrow = await connect(await w.token('wsadmin', ['assets:read:main/analytics/*', 'scripts:read:f/analytics/shop', 'jobs:read:f/analytics/shop']));
			const texts: string[] = [];
			const search = await callJson(narrow, 'search_assets', { selector: '*' });
			expect(search.body.assets.map((a: any) => a.path)).toEqual(expect.arrayContaining([`dbt://${O}`, `dbt://${RAW}`]));
			const tok = await w.token('wsadmin', ['assets:read:main/analytics/*', 'scripts:read:f/analytics/shop', 'jobs:read:f/analytics/shop']);
			const g = await tok.get(`/api/w/${WS}/assets/graph`);
			// Nothing the same token's asset graph does not show (scripts are drawn by their owner's grants).
			const shown = new Set([...g.body.assets.map((a: any) => `dbt://${a.path}`), ...g.body.runnables.map((r: any) => r.path)]);
			for (const a of search.body.assets) expect(shown.has(a.path), a.path).toBe(true);
			expect(search.body.hidden).toBe(g.body.hidden);
			texts.push(search.text);
			const shop = await callJson(narrow, 'get_asset', { asset_path: O });
			expect(shop.body.found).toBe(true);
			const ledger = await callJson(narrow, 'get_asset', { asset_path: L });
			// Nothing but the path it was asked: the same answer as for a relation that does not exist.
			expect(Object.keys(ledger.body).sort()).toEqual(['asset_path', 'found', 'note']);
			const none = await callJson(narrow, 'get_asset', { asset_path: 'main/finance/no_such_relation' });
			expect(none.body.note).toBe(ledger.body.note);
			const trace = await callJson(narrow, 'trace_column', { asset_path: RAW, column: 'id' });
			expect(trace.body.downstream.columns.map((c: any) => c.asset_path)).toEqual([O]);
			texts.push(trace.text);
			const impact = await callJson(narrow, 'column_impact', { asset_path: RAW, column: 'id' });
			expect(impact.body.columns.map((c: any) => c.asset_path)).toEqual([O]);
			texts.push(impact.text);
			const diff = await callJson(narrow, 'diff', { path: SHOP, from: hex(w.hashes.shopV1), to: hex(w.hashes.shopV2) });
			expect(diff.error).toBeNull();
			// Another project: as over HTTP, its shape only (the token may not read its authored parts).
			const otherDiff = await callJson(narrow, 'diff', { path: 'f/finance/ledger', to: 'latest' });
			const httpDiff = await (await w.token('wsadmin', ['assets:read:main/analytics/*', 'scripts:read:f/analytics/shop', 'jobs:read:f/analytics/shop'])).get(`/api/w/${WS}/dbt/diff?path=f/finance/ledger&to=latest`);
			expect(otherDiff.body ?? otherDiff.error).toEqual(httpDiff.status === 200 ? JSON.parse(JSON.stringify(httpDiff.body)) : `${httpDiff.status}: ${httpDiff.body.error}`);
			if (otherDiff.body) expect(otherDiff.body.authored).toBe(false);
			expect((await callJson(narrow, 'run_status', { job_id: w.jobs.RUN1 })).body.status).toBe('success');
			const otherRun = await callJson(narrow, 'run_status', { job_id: w.jobs.GONE });
			expect(otherRun.error).toMatch(/^40[34]: /);
			for (const t of texts) {
				expect(t).not.toContain('ledger');
				expect(t).not.toContain('finance');
			}
			// The producer's lineage is its script's to read: not crossed by this token's traces.
			expect(trace.text).not.toContain('main/report');
			expect(impact.text).not.toContain('main/report');
		});

		it('protocol errors: an unknown tool, arguments failing their schema, oversized arguments, a readable column that does not exist', async () => {
			const c = await connect(w.c.alice);
			const unknown = await protocolError(c.callTool({ name: 'drop_table', arguments: {} }));
			expect(unknown.code).toBe(ErrorCode.InvalidParams);
			expect(unknown.message).toMatch(/unknown tool "drop_table": the tools are search_assets, get_asset/);
			const missing = await protocolError(c.callTool({ name: 'trace_column', arguments: { asset_path: RAW } }));
			expect(missing.code).toBe(ErrorCode.InvalidParams);
			expect(missing.message).toMatch(/trace_column: argument "column" is required/);
			const extra = await protocolError(c.callTool({ name: 'search_assets', arguments: { selector: '*', sql: 'drop' } }));
			expect(extra.message).toMatch(/search_assets: unknown argument "sql"/);
			const range = await protocolError(c.callTool({ name: 'trace_column', arguments: { asset_path: RAW, column: 'id', depth: 0 } }));
			expect(range.message).toMatch(/trace_column: argument "depth" must be >= 1/);
			const type = await protocolError(c.callTool({ name: 'search_assets', arguments: { selector: 5 } }));
			expect(type.message).toMatch(/argument "selector" must be string/);
			const big = await protocolError(c.callTool({ name: 'search_assets', arguments: { selector: 'x'.repeat(9000) } }));
			expect(big.message).toMatch(/search_assets: the arguments are \d+ bytes; at most 8192/);
			const col = await protocolError(c.callTool({ name: 'column_impact', arguments: { asset_path: RAW, column: 'no_such_column' } }));
			expect(col.message).toMatch(/column_impact: column: .*has no column "no_such_column"/);
			const sel = await protocolError(c.callTool({ name: 'search_assets', arguments: { selector: 'tag:' } }));
			expect(sel.message).toMatch(/search_assets: selector: /);
			const bad = await protocolError(c.callTool({ name: 'get_asset', arguments: { asset_path: "main/x'; --" } }));
			expect(bad.code).toBe(ErrorCode.InvalidParams);
			// A whole request over the bound is refused before it is read as JSON-RPC.
			const huge = await w.c.alice.post(`/api/w/${WS}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70_000) } }, { headers: { accept: 'application/json, text/event-stream' } });
			expect(huge.status).toBe(413);
			expect(huge.body.error.message).toMatch(/at most 65536/);
			expect((await w.c.alice.get(`/api/w/${WS}/mcp`)).status).toBe(405);
		});

		it('over stdio: `tributary mcp` relays the same tools with the token, and the same errors', async () => {
			const bridge = await startBridge();
			const scoped = await w.c.alice.post(`/api/w/${WS}/tokens`, { label: 'mcp-stdio', scopes: ['assets:read', 'scripts:read:f/analytics/shop'] });
			const transport = new StdioClientTransport({
				command: process.execPath,
				args: ['bin/tributary.js', 'mcp', '--url', bridge.url, '--token', scoped.body.token],
				stderr: 'pipe'
			});
			const c = new Client({ name: 'stdio-test', version: '0' });
			try {
				await c.connect(transport);
				expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
				const r = await callJson(c, 'column_impact', { asset_path: RAW, column: 'id' });
				expect(r.body.columns.map((x: any) => x.asset_path)).toEqual([O]);
				const e = await protocolError(c.callTool({ name: 'nope', arguments: {} }));
				expect(e.code).toBe(ErrorCode.InvalidParams);
				expect(e.message).toMatch(/unknown tool "nope"/);
				// As GET assets/graph draws them for this token: its owner's projects, by their shape.
				expect((await c.listResources()).resources.map((r) => r.uri).sort()).toEqual(['tributary://project/f/analytics/jaffle', 'tributary://project/f/analytics/shop']);
				expect(bridge.seen.some((s) => s.path === `/api/w/${WS}/mcp`)).toBe(true);
			} finally {
				await c.close();
				await bridge.close();
			}
		});

		// Last: it deploys into the world the tests above read, and deletes what it deployed.
		it('trace_column follows a deploy and a delete at once: its cached reads are keyed by the stamp read with each request', async () => {
			const EXTRA = 'f/analytics/extra';
			const client = await connect(w.c.alice);
			const listed = async () => (await callJson(client, 'trace_column', { asset_path: RAW, column: 'id', direction: 'downstream' })).body.downstream.columns.map((c: any) => `${c.asset_path}.${c.column}`);
			const before = await listed();
			expect(await listed()).toEqual(before);
			await deployGraph(
				database,
				EXTRA,
				content(
					[node('source.extra.analytics.orders', O), node('model.extra.extra', 'main/analytics/extra')],
					[['source.extra.analytics.orders', 'model.extra.extra']],
					[['source.extra.analytics.orders', 'order_id', 'model.extra.extra', 'oid', 'copy']]
				),
				'alice'
			);
			const after = await listed();
			expect(after).toContain('main/analytics/extra.oid');
			expect(after.filter((x: string) => x !== 'main/analytics/extra.oid')).toEqual(before);
			await database.rows(sql`update script set deleted = true where workspace = ${WS} and path = ${EXTRA}`);
			expect(await listed()).toEqual(before);
		});
	});
});

describe('tributary mcp without a server', () => {
	it('refuses to start without --url or --token, naming what is missing', async () => {
		const run = (args: string[]) =>
			new Promise<{ code: number | null; err: string }>((ok) => {
				const p = spawn(process.execPath, ['bin/tributary.js', 'mcp', ...args], { env: { PATH: process.env.PATH ?? '' } });
				let err = '';
				p.stderr.on('data', (d) => (err += d));
				p.on('close', (code) => ok({ code, err }));
			});
		const noUrl = await run([]);
		expect(noUrl.code).toBe(2);
		expect(noUrl.err).toMatch(/no server: pass --url/);
		const noToken = await run(['--url', 'http://127.0.0.1:9']);
		expect(noToken.code).toBe(2);
		expect(noToken.err).toMatch(/no token/);
	});
});
