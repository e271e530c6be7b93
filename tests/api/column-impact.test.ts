// Column impact through the real routes, on both databases: the gate matrix of both endpoints
// (column lineage's gate: readers of each project, tokens, share links, runs), crossing into a
// producer and its lake table, a withheld relation, tests per relation, CSV, bad input, the
// bound; jaffle-shop's walks checked against the fixture's own expected.json; and include=scan
// on the column-lineage reads (its own list, capped, never in the edges or the impact list).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantOf, type Principal } from '../../src/lib/server/access';
import type { Database } from '../../src/lib/server/db';
import { parseImpactQuery } from '../../src/lib/server/api/impact/parse';
import { unpinnedColumnImpact } from '../../src/lib/server/api/impact/reads';
import { unpinnedColumnLineage } from '../../src/lib/server/api/lineage/reads';
import type { ColumnImpactAnswer } from '../../src/lib/types/column-impact';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { buildLineageWorld, content, deployGraph, hex, jaffleAssetPaths, node, SECRET, WS, type LineageWorld } from '../support/lineage-world';
import { sql } from 'drizzle-orm';

const RAW = 'main/analytics/raw_orders';
const O = 'main/analytics/orders';
const L = 'main/finance/ledger';
const REPORT = 'main/report';

const impactUrl = (path: string, column: string, extra = '') =>
	`asset_path=${encodeURIComponent(path)}&column=${encodeURIComponent(column)}${extra}`;

/** `path.column@depth:kinds[via]` with the dbt/lake kind spelled out, so a failure reads like the table. */
function show(a: ColumnImpactAnswer): string[] {
	return a.columns.map((c) => `${c.kind}:${c.asset_path}.${c.column}@${c.depth}:${c.kinds.join('>')}${c.via.length ? `[${c.via.join(';')}]` : ''}`);
}

function principal(username: string, folders: string[], isAdmin = false): Principal {
	return {
		workspace: WS,
		username,
		accountId: username,
		isAdmin,
		instanceAdmin: false,
		groups: [],
		readFolders: new Set(folders),
		writeFolders: new Set(),
		scopes: null,
		via: 'session'
	};
}

describeFixtures('column impact', () => {
	const expected = JSON.parse(readFileSync(fixture('constructed-index', 'jaffle-shop-1.12', 'expected.json'), 'utf8'));

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
		});
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const unpinned = (c: ApiClient, query: string) => c.get(`/api/w/${WS}/assets/column_impact?${query}`);
		const pinned = (c: ApiClient, job: string, query: string, token?: string) =>
			c.get(`/api/w/${WS}/jobs/dbt_column_impact/${job}?${query}${token ? `&view_token=${token}` : ''}`);
		const answerOf = async (p: Promise<{ status: number; body: any }>): Promise<ColumnImpactAnswer> => {
			const r = await p;
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			// `consumers` (metrics, exposures...) only when a downstream answer reaches some: tests/api/consumers.test.ts.
			expect(Object.keys(r.body).filter((k) => k !== 'consumers').sort()).toEqual(['columns', 'tests', 'truncated', 'withheld']);
			if ('consumers' in r.body) expect(r.body.consumers.length).toBeGreaterThan(0);
			return r.body;
		};
		const shareLink = async (job: string, kind: 'member' | 'public') => {
			const r = await w.c.alice.get(`/api/w/${WS}/jobs/share/${job}?kind=${kind}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body.token as string;
		};

		// raw_orders.id → orders.order_id (shop, folder analytics) → ledger.order_ref (ledger,
		// folder finance) and → the lake table main/report (producer f/analytics/report).
		const ORDERS = `dbt:${O}.order_id@1:copy`;
		const LEDGER = `dbt:${L}.order_ref@2:copy>copy`;
		const LAKE = `ducklake:${REPORT}.order_ref@2:copy>copy[f/analytics/report]`;

		describe('the gate: column lineage exactly, walked one way', () => {
			it('a reader of every project gets every column, across the producer', async () => {
				for (const c of [w.c.wsadmin, w.c.root]) {
					const a = await answerOf(unpinned(c, impactUrl(RAW, 'id')));
					expect(show(a)).toEqual([ORDERS, LEDGER, LAKE]);
					expect(a.truncated).toBe(false);
					expect(a.withheld).toBe(0);
				}
			});

			it('each project under its own gate, and the producer under its script', async () => {
				// alice reads analytics (shop and the producer), not finance.
				const alice = await answerOf(unpinned(w.c.alice, impactUrl(RAW, 'id')));
				expect(show(alice)).toEqual([ORDERS, LAKE]);
				expect(JSON.stringify(alice)).not.toContain('ledger');
				// carol reads finance only: no project of hers describes raw_orders...
				expect(show(await answerOf(unpinned(w.c.carol, impactUrl(RAW, 'id'))))).toEqual([]);
				// ...while her ledger describes orders, and the producer is not hers to cross.
				expect(show(await answerOf(unpinned(w.c.carol, impactUrl(O, 'order_id'))))).toEqual([`dbt:${L}.order_ref@1:copy`]);
				// bob reads neither: no columns, and an unknown column is no different (nothing to probe).
				expect(show(await answerOf(unpinned(w.c.bob, impactUrl(RAW, 'id'))))).toEqual([]);
				expect(show(await answerOf(unpinned(w.c.bob, impactUrl(RAW, 'no_such_column'))))).toEqual([]);
			});

			it('tokens: assets:read reaches the route, scripts:read the projects', async () => {
				expect(show(await answerOf(unpinned(await w.token('alice', ['assets:read']), impactUrl(RAW, 'id'))))).toEqual([]);
				const scoped = await w.token('alice', ['assets:read', 'scripts:read:f/analytics/shop']);
				// The shop, not the producer (another path).
				expect(show(await answerOf(unpinned(scoped, impactUrl(RAW, 'id'))))).toEqual([ORDERS]);
				const all = await w.token('alice', ['assets:read', 'scripts:read']);
				expect(show(await answerOf(unpinned(all, impactUrl(RAW, 'id'))))).toEqual([ORDERS, LAKE]);
				expect((await unpinned(await w.token('alice', ['scripts:read']), impactUrl(RAW, 'id'))).status).toBe(403);
			});

			it('crosses from one project into another where they share a relation, with no producer between', async () => {
				const noProducer = await w.token('wsadmin', ['assets:read', 'scripts:read:f/analytics/shop', 'scripts:read:f/finance/*']);
				expect(show(await answerOf(unpinned(noProducer, impactUrl(RAW, 'id'))))).toEqual([ORDERS, LEDGER]);
			});

			it("a relation outside the token's assets:read is withheld: counted, never named, not walked through", async () => {
				const narrow = await w.token('wsadmin', ['assets:read:main/analytics/*', 'scripts:read']);
				const a = await answerOf(unpinned(narrow, impactUrl(RAW, 'id')));
				expect(show(a)).toEqual([ORDERS]);
				expect(a.withheld).toBe(2);
				expect(JSON.stringify(a)).not.toContain('ledger');
				expect(JSON.stringify(a)).not.toContain(REPORT);
				// Upstream from the ledger: the ledger itself is outside, orders and raw_orders are not.
				const up = await answerOf(unpinned(await w.token('wsadmin', ['assets:read:main/finance/*', 'scripts:read']), impactUrl(L, 'order_ref', '&direction=upstream')));
				expect(show(up)).toEqual([]);
				expect(up.withheld).toBe(1);
			});

			it('upstream, and from a lake table', async () => {
				const up = await answerOf(unpinned(w.c.wsadmin, impactUrl(L, 'order_ref', '&direction=upstream')));
				expect(show(up)).toEqual([`dbt:${O}.order_id@1:copy`, `dbt:${RAW}.id@2:copy>copy`]);
				const lake = await answerOf(unpinned(w.c.alice, impactUrl(`ducklake://${REPORT}`, 'order_ref', '&direction=upstream')));
				expect(show(lake)).toEqual([`dbt:${O}.order_id@1:copy[f/analytics/report]`, `dbt:${RAW}.id@2:copy>copy[f/analytics/report]`]);
				// Nothing is downstream of the lake table; bob may not read the producer, so the table is unknown to him.
				expect(show(await answerOf(unpinned(w.c.alice, impactUrl(`ducklake://${REPORT}`, 'order_ref'))))).toEqual([]);
				expect(show(await answerOf(unpinned(w.c.bob, impactUrl(`ducklake://${REPORT}`, 'order_ref', '&direction=upstream'))))).toEqual([]);
			});

			it('names the tests on the listed relations, from the projects the caller reads', async () => {
				const a = await answerOf(unpinned(w.c.wsadmin, impactUrl(RAW, 'id')));
				expect(a.tests).toEqual({ [O]: [{ kind: 'accepted_values', column: 'status', severity: 'ERROR' }] });
				// A test's arguments are not part of it here (they are authored and may be large).
				expect(JSON.stringify(a)).not.toContain(SECRET);
			});

			it('a scan edge is never walked: a column read only by a WHERE has no impact', async () => {
				expect(show(await answerOf(unpinned(w.c.wsadmin, impactUrl(RAW, 'status'))))).toEqual([]);
			});

			it('a described column without lineage answers an empty list; a readable relation without the column is a 400', async () => {
				expect(show(await answerOf(unpinned(w.c.alice, impactUrl(O, 'id'))))).toEqual([]);
				const r = await unpinned(w.c.alice, impactUrl(O, 'no_such_column'));
				expect(r.status).toBe(400);
				expect(r.body.error).toMatch(/column.*no_such_column/);
				const lake = await unpinned(w.c.alice, impactUrl(`ducklake://${REPORT}`, 'nope'));
				expect(lake.status).toBe(400);
				expect(lake.body.error).toMatch(/column/);
			});

			it('a named version answers for that project, and one the caller cannot see is a 404', async () => {
				const v1 = `&dbt_script_hash=${hex(w.hashes.shopV1)}`;
				expect(show(await answerOf(unpinned(w.c.alice, impactUrl('main/analytics/stock', 'sku', v1))))).toEqual([`dbt:main/analytics/stock_daily.sku@1:copy`]);
				expect((await unpinned(w.c.bob, impactUrl('main/analytics/stock', 'sku', v1))).status).toBe(404);
			});
		});

		describe('pinned to a job', () => {
			it("a run's own graph, for readers of the project only; share links and the run's creator get nothing", async () => {
				const { RUN1, RUN2, BOBRUN } = w.jobs;
				// RUN1 reads shop v1: dbt's lineage alone (a pinned graph holds no producers, no other project).
				for (const c of [w.c.alice, w.c.wsadmin]) expect(show(await answerOf(pinned(c, RUN1, impactUrl(RAW, 'id'))))).toEqual([ORDERS]);
				expect(show(await answerOf(pinned(w.c.alice, RUN2, impactUrl('main/analytics/stock', 'sku'))))).toEqual([
					'dbt:main/analytics/stock_daily.sku@1:copy',
					'dbt:main/analytics/stock_weekly.sku@2:copy>copy'
				]);
				const member = await shareLink(RUN1, 'member');
				const pub = await shareLink(RUN1, 'public');
				expect(show(await answerOf(pinned(w.c.bob, RUN1, impactUrl(RAW, 'id'), member)))).toEqual([]);
				expect(show(await answerOf(pinned(w.c.anon, RUN1, impactUrl(RAW, 'id'), pub)))).toEqual([]);
				expect(show(await answerOf(pinned(w.c.bob, BOBRUN, impactUrl(RAW, 'id'))))).toEqual([]);
				const refused = await pinned(w.c.bob, RUN1, impactUrl(RAW, 'id'));
				expect(refused.status).toBe(403);
				expect(refused.body.error).toMatch(/share link/);
				expect((await pinned(w.c.anon, RUN1, impactUrl(RAW, 'id'))).status).toBe(401);
				// The query never chooses the version of a pinned read.
				const v2 = `&dbt_script_hash=${'f'.repeat(16)}`;
				expect(show(await answerOf(pinned(w.c.alice, RUN1, impactUrl('main/analytics/stock', 'sku', v2))))).toEqual(['dbt:main/analytics/stock_daily.sku@1:copy']);
			});

			it("a preview's lineage answers through its job; a job that is gone answers unpinned", async () => {
				expect(show(await answerOf(pinned(w.c.alice, w.jobs.PREVIEW, impactUrl('main/analytics/draft_src', 'raw'))))).toEqual([
					'dbt:main/analytics/draft.clean@1:mod'
				]);
				expect(show(await answerOf(unpinned(w.c.alice, impactUrl('main/analytics/draft_src', 'raw'))))).toEqual([]);
				expect(show(await answerOf(pinned(w.c.alice, w.jobs.GONE, impactUrl(RAW, 'id'))))).toEqual([ORDERS, LAKE]);
				const nowhere = '7f1d7a3e-0000-4000-8000-000000000001';
				expect(show(await answerOf(pinned(w.c.bob, nowhere, impactUrl(RAW, 'id'))))).toEqual([]);
			});

			it('a pinned graph holds no lake tables: a lake start answers an empty list', async () => {
				expect(show(await answerOf(pinned(w.c.alice, w.jobs.RUN1, impactUrl(`ducklake://${REPORT}`, 'order_ref', '&direction=upstream'))))).toEqual([]);
			});

			it('a pinned graph without the column is a 400 for a reader', async () => {
				const r = await pinned(w.c.alice, w.jobs.RUN1, impactUrl(RAW, 'nope'));
				expect(r.status).toBe(400);
				expect(r.body.error).toMatch(/nope/);
			});
		});

		describe('format=csv', () => {
			it('text/csv with a header row and one row per column, truncated and withheld in headers', async () => {
				const r = await w.c.wsadmin.call('GET', `/api/w/${WS}/assets/column_impact?${impactUrl(RAW, 'id', '&format=csv')}`);
				expect(r.status).toBe(200);
				expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
				expect(r.headers.get('content-disposition')).toMatch(/attachment; filename="impact-downstream-id\.csv"/);
				expect(r.headers.get('x-impact-truncated')).toBe('false');
				expect(r.headers.get('x-impact-withheld')).toBe('0');
				expect(String(r.body).split('\r\n')).toEqual([
					'kind,asset_path,column,depth,kinds,via,tests',
					`dbt,${O},order_id,1,copy,,accepted_values(status)`,
					`dbt,${L},order_ref,2,copy>copy,,`,
					`ducklake,${REPORT},order_ref,2,copy>copy,f/analytics/report,`,
					''
				]);
				const narrow = await w.token('wsadmin', ['assets:read:main/analytics/*', 'scripts:read']);
				const n = await narrow.call('GET', `/api/w/${WS}/assets/column_impact?${impactUrl(RAW, 'id', '&format=csv')}`);
				expect(n.headers.get('x-impact-withheld')).toBe('2');
				expect(String(n.body)).not.toContain('ledger');
			});

			it('the pinned form too, and a viewer without access gets the header row alone', async () => {
				const r = await w.c.alice.call('GET', `/api/w/${WS}/jobs/dbt_column_impact/${w.jobs.RUN1}?${impactUrl(RAW, 'id', '&format=csv')}`);
				expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
				expect(String(r.body).split('\r\n')).toEqual(['kind,asset_path,column,depth,kinds,via,tests', `dbt,${O},order_id,1,copy,,accepted_values(status)`, '']);
				const b = await w.c.bob.call('GET', `/api/w/${WS}/assets/column_impact?${impactUrl(RAW, 'id', '&format=csv')}`);
				expect(String(b.body)).toBe('kind,asset_path,column,depth,kinds,via,tests\r\n');
			});
		});

		describe('bad input is a 400 with a message, never a 500', () => {
			const long = `main/analytics/${'x'.repeat(10 * 1024)}`;
			it.each([
				['no asset_path', `column=id`, /asset_path is required/],
				['no column', `asset_path=${RAW}`, /column is required/],
				['an empty column', `asset_path=${RAW}&column=`, /column is required/],
				['a 10 KB asset_path', impactUrl(long, 'id'), /asset_path is 10255 characters/],
				['direction=sideways', impactUrl(RAW, 'id', '&direction=sideways'), /direction must be downstream or upstream/],
				['format=xml', impactUrl(RAW, 'id', '&format=xml'), /format must be json or csv/],
				['asset_path twice', `${impactUrl(RAW, 'id')}&asset_path=${O}`, /asset_path may be given once/],
				['column twice', `${impactUrl(RAW, 'id')}&column=x`, /column may be given once/],
				['a NUL in the column', `asset_path=${RAW}&column=id%00`, /column must be a column name/],
				['a quote in the path', impactUrl(`${RAW}'--`, 'id'), /asset_path/],
				['a bad lake path', impactUrl('ducklake://main/../x', 'id'), /lake table/],
				['a non-hex dbt_script_hash', impactUrl(RAW, 'id', '&dbt_script_hash=12345'), /dbt_script_hash/]
			])('%s', async (_name, query, message) => {
				const r = await unpinned(w.c.alice, query);
				expect(r.status, JSON.stringify(r.body)).toBe(400);
				expect(r.body.error).toMatch(message);
				if (!query.includes('dbt_script_hash')) {
					const p = await pinned(w.c.alice, w.jobs.RUN1, query);
					expect(p.status).toBe(400);
					expect(p.body.error).toMatch(message);
				}
			});
		});

		describe('jaffle-shop against expected.json direct_lineage_components', () => {
			// The walk the fixture implies, computed here from the fixture alone.
			function reach(edges: string[][], from: string, down: boolean): Map<string, number> {
				const depth = new Map<string, number>([[from, 0]]);
				let frontier = [from];
				for (let d = 1; frontier.length; d++) {
					const next: string[] = [];
					for (const f of frontier) {
						for (const [pu, pc, cu, cc] of edges) {
							const [a, b] = down ? [`${pu}.${pc}`, `${cu}.${cc}`] : [`${cu}.${cc}`, `${pu}.${pc}`];
							if (a === f && !depth.has(b)) {
								depth.set(b, d);
								next.push(b);
							}
						}
					}
					frontier = next;
				}
				depth.delete(from);
				return depth;
			}
			const cases = Object.entries(expected.direct_lineage_components as Record<string, { edges: string[][] }>);

			it.each(cases)('%s: every column of the relation, both ways', async (uid, comp) => {
				const pathOf = jaffleAssetPaths(w.manifest);
				const cols = [...new Set(comp.edges.flatMap(([pu, pc, cu, cc]) => [pu === uid ? pc : null, cu === uid ? cc : null]).filter((c): c is string => c !== null))].sort();
				expect(cols.length).toBeGreaterThan(0);
				let nonEmpty = 0;
				for (const column of cols) {
					for (const direction of ['downstream', 'upstream'] as const) {
						const want = [...reach(comp.edges, `${uid}.${column}`, direction === 'downstream')]
							.map(([k, d]) => {
								const i = k.lastIndexOf('.');
								return `${pathOf.get(k.slice(0, i))}.${k.slice(i + 1)}@${d}`;
							})
							.sort();
						const a = await answerOf(unpinned(w.c.alice, impactUrl(pathOf.get(uid)!, column, `&direction=${direction}`)));
						expect(a.columns.map((c) => `${c.asset_path}.${c.column}@${c.depth}`).sort(), `${direction} of ${column}`).toEqual(want);
						expect(a.truncated).toBe(false);
						if (want.length) nonEmpty++;
					}
				}
				expect(nonEmpty).toBeGreaterThan(0);
			});
		});

		describe('the bound', () => {
			const ORDERS_J = 'main/main/stg_orders';
			const alice = () => principal('alice', ['analytics']);
			const query = (column: string) => parseImpactQuery(new URLSearchParams({ asset_path: ORDERS_J, column }));

			it('keeps the nearest, says it was cut, and is complete at exactly the limit', async () => {
				const whole = await unpinnedColumnImpact(grantOf(alice()), database, query('order_id'));
				expect(whole.columns.length).toBeGreaterThan(2);
				expect(whole.truncated).toBe(false);
				const exact = await unpinnedColumnImpact(grantOf(alice()), database, query('order_id'), { limit: whole.columns.length });
				expect(exact.columns).toEqual(whole.columns);
				expect(exact.truncated).toBe(false);
				const cut = await unpinnedColumnImpact(grantOf(alice()), database, query('order_id'), { limit: 2 });
				expect(cut.truncated).toBe(true);
				expect(cut.columns).toEqual(whole.columns.slice(0, 2));
			});
		});

		describe('include=scan on the column-lineage reads', () => {
			const ORDERS_COPY = { from_asset_path: RAW, from_column: 'id', to_asset_path: O, to_column: 'order_id', kind: 'copy', provenance: 'engine' };
			const ORDERS_SCAN = { from_asset_path: RAW, from_column: 'status', to_asset_path: O, to_column: 'order_id', kind: 'scan', provenance: 'engine' };
			const lineage = (c: ApiClient, path: string, extra = '') => c.get(`/api/w/${WS}/assets/column_lineage?asset_path=${encodeURIComponent(path)}${extra}`);

			it('serves the scan edges in their own list only when asked; the answer is unchanged without it', async () => {
				const plain = await lineage(w.c.alice, O);
				expect(plain.body).toEqual({ edges: [ORDERS_COPY], truncated: false });
				const scan = await lineage(w.c.alice, O, '&include=scan');
				expect(scan.status).toBe(200);
				expect(scan.body).toEqual({ edges: [ORDERS_COPY], truncated: false, scan_edges: [ORDERS_SCAN], scan_truncated: false });
				// From the parent end too.
				expect((await lineage(w.c.alice, RAW, '&include=scan')).body.scan_edges).toEqual([ORDERS_SCAN]);
				// Pinned, the same.
				const p = await w.c.alice.get(`/api/w/${WS}/jobs/dbt_column_lineage/${w.jobs.RUN1}?asset_path=${O}&include=scan`);
				expect(p.body).toEqual({ edges: [ORDERS_COPY], truncated: false, scan_edges: [ORDERS_SCAN], scan_truncated: false });
				const pp = await w.c.alice.get(`/api/w/${WS}/jobs/dbt_column_lineage/${w.jobs.RUN1}?asset_path=${O}`);
				expect(Object.keys(pp.body).sort()).toEqual(['edges', 'truncated']);
			});

			it("takes column lineage's gate", async () => {
				expect((await lineage(w.c.bob, O, '&include=scan')).body).toEqual({ edges: [], truncated: false, scan_edges: [], scan_truncated: false });
				const member = await shareLink(w.jobs.RUN1, 'member');
				const p = await w.c.bob.get(`/api/w/${WS}/jobs/dbt_column_lineage/${w.jobs.RUN1}?asset_path=${O}&include=scan&view_token=${member}`);
				expect(p.body).toEqual({ edges: [], truncated: false, scan_edges: [], scan_truncated: false });
			});

			it('is capped, saying so', async () => {
				const J = 'main/main/orders';
				const whole = await unpinnedColumnLineage(grantOf(principal('alice', ['analytics'])), database, [J], null, { scan: true });
				const n = whole.scan_edges!.length;
				expect(n).toBeGreaterThan(3);
				expect(whole.scan_truncated).toBe(false);
				expect(whole.scan_edges!.every((e) => e.kind === 'scan' && (e.from_asset_path === J || e.to_asset_path === J))).toBe(true);
				expect(whole.edges.every((e) => e.kind === 'copy' || e.kind === 'mod')).toBe(true);
				const exact = await unpinnedColumnLineage(grantOf(principal('alice', ['analytics'])), database, [J], null, { scan: true, scanLimit: n });
				expect(exact.scan_truncated).toBe(false);
				const cut = await unpinnedColumnLineage(grantOf(principal('alice', ['analytics'])), database, [J], null, { scan: true, scanLimit: 3 });
				expect(cut.scan_edges).toEqual(whole.scan_edges!.slice(0, 3));
				expect(cut.scan_truncated).toBe(true);
			});

			it('an unknown include word is a 400 naming it', async () => {
				for (const url of [`/api/w/${WS}/assets/column_lineage?asset_path=${O}&include=scans`, `/api/w/${WS}/jobs/dbt_column_lineage/${w.jobs.RUN1}?asset_path=${O}&include=bogus`]) {
					const r = await w.c.alice.get(url);
					expect(r.status).toBe(400);
					expect(r.body.error).toMatch(/include: unknown word/);
				}
			});
		});

		// Last: it deploys into the world the tests above read.
		describe('answers read through the graph cache never outlive what they were read from', () => {
			const EXTRA = 'f/analytics/extra';
			const extra = (withEdge: boolean) =>
				content(
					[node('source.extra.analytics.orders', O), node('model.extra.extra', 'main/analytics/extra')],
					[['source.extra.analytics.orders', 'model.extra.extra']],
					withEdge ? [['source.extra.analytics.orders', 'order_id', 'model.extra.extra', 'oid', 'copy']] : []
				);
			const listed = async (c: ApiClient) => {
				const r = await c.get(`/api/w/${WS}/assets/column_impact?${impactUrl(RAW, 'id')}`);
				expect(r.status, JSON.stringify(r.body)).toBe(200);
				return (r.body as ColumnImpactAnswer).columns.map((x) => `${x.asset_path}.${x.column}`);
			};

			it('a new project reading a listed relation, its next version without the edge, and its deletion each answer at once', async () => {
				const before = await listed(w.c.alice);
				expect(await listed(w.c.alice)).toEqual(before);
				expect(before).not.toContain('main/analytics/extra.oid');
				await deployGraph(database, EXTRA, extra(true), 'alice');
				const withExtra = await listed(w.c.alice);
				expect(withExtra).toContain('main/analytics/extra.oid');
				expect(withExtra.filter((x) => x !== 'main/analytics/extra.oid')).toEqual(before);
				// carol does not read analytics: the cached lookups are gated per caller.
				expect(await listed(w.c.carol)).not.toContain('main/analytics/extra.oid');
				await deployGraph(database, EXTRA, extra(false), 'alice');
				expect(await listed(w.c.alice)).toEqual(before);
				await deployGraph(database, EXTRA, extra(true), 'alice');
				expect(await listed(w.c.alice)).toContain('main/analytics/extra.oid');
				await database.rows(sql`update script set deleted = true where workspace = ${WS} and path = ${EXTRA}`);
				expect(await listed(w.c.alice)).toEqual(before);
			});
		});
	});
});
