// GET dbt/diff through the real routes, on both databases: the REAL jaffle-shop manifest and
// index deployed, then mutated copies of them (a dropped column, a renamed model, a retyped
// column, a removed ref(), an added model) previewed and diffed against it; the gates (outsider,
// reader, shape-only token, share link), the one 404, the empty diff and the 410 of a pruned
// preview. Expected changes are the mutations the test made, never read back from the code.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { NO_SUCH_DIFF_REF } from '../../src/lib/server/access';
import { deleteGraph, RETENTION, versionKey } from '../../src/lib/server/repo/graph';
import { hexToHash } from '../../src/lib/types/script-hash';
import type { GraphDiff } from '../../src/lib/types/graph-diff';
import { ApiClient, login, useInstanceAdmin } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { indexRows, writeColumns, writeLineage, type IndexRow } from '../support/index-parquet';

type Row = IndexRow;
const WS = 'shop';
const PATH = 'f/analytics/jaffle';
const M = 'model.jaffle_shop.';
const REL = 'main/main/';

const parquetRows = (path: string) => indexRows(new Uint8Array(readFileSync(path)));

interface Artifacts {
	manifest: any;
	lineage: Row[];
	columns: Row[];
}

const clone = (a: Artifacts): Artifacts => ({ manifest: structuredClone(a.manifest), lineage: a.lineage.map((r) => ({ ...r })), columns: a.columns.map((r) => ({ ...r })) });

/** The mutations, each applied to a fresh copy of the real artifacts. */
const MUTATIONS: Record<string, (a: Artifacts) => void> = {
	dropped_column(a) {
		const n = a.manifest.nodes[`${M}stg_customers`];
		n.raw_code = n.raw_code.replace(',\n\n        ---------- text\n        name as customer_name', '');
		delete n.columns.customer_name;
		a.columns = a.columns.filter((r) => !(r.unique_id === `${M}stg_customers` && r.column_name === 'customer_name'));
		a.lineage = a.lineage.filter(
			(r) =>
				!(r.to_node_unique_id === `${M}stg_customers` && r.to_column_name === 'customer_name') &&
				!(r.from_node_unique_id === `${M}stg_customers` && r.from_column_name === 'customer_name')
		);
	},
	// order_items.product_price is what the `revenue` metric sums (jaffle-shop's own semantic layer).
	dropped_price(a) {
		const id = `${M}order_items`;
		const n = a.manifest.nodes[id];
		n.raw_code = n.raw_code.replace('products.product_price,', '');
		a.columns = a.columns.filter((r) => !(r.unique_id === id && r.column_name === 'product_price'));
		a.lineage = a.lineage.filter(
			(r) => !(r.to_node_unique_id === id && r.to_column_name === 'product_price') && !(r.from_node_unique_id === id && r.from_column_name === 'product_price')
		);
	},
	retyped_column(a) {
		const n = a.manifest.nodes[`${M}stg_customers`];
		n.raw_code = n.raw_code.replace('id as customer_id', 'cast(id as integer) as customer_id');
		for (const r of a.columns) if (r.unique_id === `${M}stg_customers` && r.column_name === 'customer_id') r.declared_type = 'INTEGER';
	},
	renamed_model(a) {
		const text = JSON.stringify(a.manifest).replaceAll(`"${M}locations"`, `"${M}stores"`);
		a.manifest = JSON.parse(text);
		const n = a.manifest.nodes[`${M}stores`];
		Object.assign(n, { name: 'stores', alias: 'stores', relation_name: '"jaffle_shop"."main"."stores"' });
		const rename = (v: unknown) => (v === `${M}locations` ? `${M}stores` : v);
		for (const r of a.columns) r.unique_id = rename(r.unique_id);
		for (const r of a.lineage) {
			r.from_node_unique_id = rename(r.from_node_unique_id);
			r.to_node_unique_id = rename(r.to_node_unique_id);
		}
	},
	removed_ref(a) {
		const child = `${M}order_items`;
		const parent = `${M}stg_supplies`;
		const n = a.manifest.nodes[child];
		n.depends_on.nodes = n.depends_on.nodes.filter((x: string) => x !== parent);
		n.raw_code = n.raw_code.replace("select * from {{ ref('stg_supplies') }}", 'select 1 as product_id, 0 as supply_cost');
		a.manifest.parent_map[child] = a.manifest.parent_map[child].filter((x: string) => x !== parent);
		a.manifest.child_map[parent] = a.manifest.child_map[parent].filter((x: string) => x !== child);
		a.lineage = a.lineage.filter((r) => !(r.from_node_unique_id === parent && r.to_node_unique_id === child));
	},
	added_model(a) {
		const src = a.manifest.nodes[`${M}locations`];
		const id = `${M}loyalty`;
		a.manifest.nodes[id] = {
			...structuredClone(src),
			unique_id: id,
			name: 'loyalty',
			alias: 'loyalty',
			relation_name: '"jaffle_shop"."main"."loyalty"',
			fqn: ['jaffle_shop', 'marts', 'loyalty'],
			path: 'marts/loyalty.sql',
			original_file_path: 'models/marts/loyalty.sql',
			raw_code: "select location_id, 'gold' as tier from {{ ref('locations') }}",
			depends_on: { macros: [], nodes: [`${M}locations`] },
			columns: {}
		};
		a.manifest.parent_map[id] = [`${M}locations`];
		a.manifest.child_map[id] = [];
		a.manifest.child_map[`${M}locations`] = [...a.manifest.child_map[`${M}locations`], id];
		a.columns.push(
			{ unique_id: id, column_name: 'location_id', column_index: 0n, inferred_type: 'VARCHAR', data_type: 'VARCHAR' },
			{ unique_id: id, column_name: 'tier', column_index: 1n, inferred_type: 'VARCHAR', data_type: 'VARCHAR' }
		);
		a.lineage.push({ from_node_unique_id: `${M}locations`, from_column_name: 'location_id', to_node_unique_id: id, to_column_name: 'location_id', lineage_kind: 'copy' });
	}
};

describeFixtures('lineage diff (dbt/diff)', () => {
	const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');
	const INDEX = fixture('constructed-index', 'jaffle-shop-1.12');
	let real: Artifacts;

	beforeAll(async () => {
		real = {
			manifest: JSON.parse(readFileSync(`${JAFFLE}/manifest.json`, 'utf8')),
			lineage: await parquetRows(`${INDEX}/index/dbt.column_lineage.parquet`),
			columns: await parquetRows(`${INDEX}/index/dbt.node_columns.parquet`)
		};
	});

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let restoreAdmin: () => void;
		let admin: ApiClient;
		let alice: ApiClient;
		let bob: ApiClient;
		let carol: ApiClient;
		let v1: string;
		const previews: Record<string, string> = {};

		function form(a: Artifacts, path = PATH): FormData {
			const f = new FormData();
			f.set('path', path);
			f.set('manifest', new Blob([JSON.stringify(a.manifest)]), 'manifest.json');
			f.set('column_lineage', new Blob([writeLineage(a.lineage) as Uint8Array<ArrayBuffer>]), 'dbt.column_lineage.parquet');
			f.set('node_columns', new Blob([writeColumns(a.columns) as Uint8Array<ArrayBuffer>]), 'dbt.node_columns.parquet');
			return f;
		}
		async function upload(c: ApiClient, kind: 'deploy' | 'preview', a: Artifacts, path = PATH) {
			const r = await c.call('POST', `/api/w/${WS}/scripts/dbt/${kind}?path=${path}`, { form: form(a, path) });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.warnings).toEqual([]);
			return r.body as { hash: string | null; job_id: string };
		}
		const diff = (c: ApiClient, q: string, ws = WS) => c.get(`/api/w/${ws}/dbt/diff?path=${PATH}&${q}`);
		async function ok(c: ApiClient, q: string): Promise<GraphDiff> {
			const r = await diff(c, q);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body;
		}

		beforeAll(async () => {
			database = await backend.open();
			setDatabase(database);
			restoreAdmin = useInstanceAdmin({ username: 'admin', password: 'admin-password-1' });
			await bootstrap(database, { log: () => {} });
			admin = await login('admin', 'admin-password-1');
			for (const ws of [WS, 'other']) expect((await admin.post('/api/workspaces', { id: ws, name: ws })).status).toBeLessThan(300);
			for (const u of ['alice', 'bob', 'carol']) expect((await admin.post(`/api/w/${WS}/users`, { username: u, password: `${u}-password-1` })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${WS}/folders`, { name: 'analytics', readers: ['u/carol'], writers: ['u/alice'] })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${WS}/warehouses`, { name: 'main', default_database: 'jaffle_shop' })).status).toBeLessThan(300);
			[alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((u) => login(u)));
			v1 = (await upload(alice, 'deploy', real)).hash!;
			for (const [name, mutate] of Object.entries(MUTATIONS)) {
				const a = clone(real);
				mutate(a);
				// Retention keeps 5 previews per path and person: the sixth is the workspace admin's.
				previews[name] = (await upload(name === 'dropped_price' ? admin : alice, 'preview', a)).job_id;
			}
		});
		afterAll(async () => {
			restoreAdmin?.();
			await database?.close();
		});

		it('a dropped column that downstream reads is breaking, with its readers', async () => {
			const d = await ok(alice, `to=${previews.dropped_column}`);
			expect(d.from).toEqual({ hash: v1, job_id: null });
			expect(d.to).toEqual({ hash: null, job_id: previews.dropped_column });
			expect(d.models.added).toEqual([]);
			expect(d.models.removed).toEqual([]);
			const m = d.models.modified.find((x) => x.unique_id === `${M}stg_customers`)!;
			expect(m.changes).toEqual(expect.arrayContaining(['sql', 'columns']));
			expect(m.classification).toBe('breaking');
			expect(m.reason).toContain('removes `stg_customers.customer_name`');
			const removed = d.columns!.removed.filter((c) => c.asset_path === `${REL}stg_customers`);
			expect(removed.map((c) => c.column)).toEqual(['customer_name']);
			// Read downstream by customers.customer_name (the fixture's own copy edge).
			const readers = real.lineage.filter((r) => r.from_node_unique_id === `${M}stg_customers` && r.from_column_name === 'customer_name' && r.lineage_kind !== 'scan');
			expect(readers.length).toBeGreaterThan(0);
			expect(removed[0].impact).toEqual(
				expect.arrayContaining(readers.map((r) => expect.objectContaining({ kind: 'dbt', asset_path: `${REL}${String(r.to_node_unique_id).slice(M.length)}`, column: r.to_column_name, depth: 1 })))
			);
			expect(d.classification).toBe('breaking');
			const gone = real.lineage.length - MUTATED.dropped_column().lineage.length;
			expect(d.column_edges).toEqual({ added: 0, removed: gone });
		});

		it('a retyped column that downstream reads is breaking', async () => {
			const d = await ok(alice, `from=latest&to=${previews.retyped_column}`);
			expect(d.columns!.retyped).toEqual([
				expect.objectContaining({ asset_path: `${REL}stg_customers`, column: 'customer_id', from_type: 'VARCHAR', to_type: 'INTEGER' })
			]);
			expect(d.columns!.retyped[0].impact!.length).toBeGreaterThan(0);
			const m = d.models.modified.find((x) => x.unique_id === `${M}stg_customers`)!;
			expect(m.changes).toEqual(expect.arrayContaining(['sql', 'column_types']));
			expect(m.classification).toBe('breaking');
			expect(d.columns!.removed).toEqual([]);
		});

		it('a dropped column a metric reads is breaking, naming the metric and what is built on it', async () => {
			const d = await ok(admin, `to=${previews.dropped_price}`);
			const m = d.models.modified.find((x) => x.unique_id === `${M}order_items`)!;
			expect(m.classification).toBe('breaking');
			expect(m.reason).toContain('removes `order_items.product_price`');
			expect(m.reason).toMatch(/breaks the metric `[^`]+` \(and \d+ more metrics\) and the saved query `Revenue Metrics`/);
			const removed = d.columns!.removed.find((c) => c.asset_path === `${REL}order_items` && c.column === 'product_price')!;
			expect(removed.consumers!.find((c) => c.name === 'revenue')).toMatchObject({ type: 'metric', via: ['order_items.product_price'] });
			const names = d.consumers!.map((c) => `${c.type}:${c.name}`);
			expect(names).toEqual(expect.arrayContaining(['metric:revenue', 'metric:food_revenue_pct', 'metric:cumulative_revenue', 'saved_query:revenue_metrics']));
			expect(names).not.toContain('metric:order_total');
			expect(d.classification).toBe('breaking');
			// A shape-only caller is told it breaks, never what.
			const t = await admin.post(`/api/w/${WS}/tokens`, { label: 'shape-metrics', scopes: ['assets:read', 'jobs:read'] });
			const shape = await ok(admin.withBearer(t.body.token), `to=${previews.dropped_price}`);
			expect(shape.classification).toBe('breaking');
			expect('consumers' in shape).toBe(false);
			expect(JSON.stringify(shape)).not.toContain('revenue');
		});

		it('a renamed model: removed, added, paired as a rename, its old columns removed', async () => {
			const d = await ok(alice, `to=${previews.renamed_model}`);
			expect(d.models.removed).toEqual([`${M}locations`]);
			expect(d.models.added).toEqual([`${M}stores`]);
			expect(d.models.renamed).toEqual([{ from: `${M}locations`, to: `${M}stores` }]);
			const cols = real.columns.filter((r) => r.unique_id === `${M}locations`).map((r) => r.column_name).sort();
			expect(d.columns!.removed.filter((c) => c.asset_path === `${REL}locations`).map((c) => c.column)).toEqual(cols);
			expect(d.columns!.added.filter((c) => c.asset_path === `${REL}stores`).map((c) => c.column)).toEqual(cols);
			// The ref() into it moved with it.
			expect(d.ref_edges.removed).toEqual([expect.objectContaining({ from_unique_id: `${M}stg_locations`, to_unique_id: `${M}locations` })]);
			expect(d.ref_edges.added).toEqual([expect.objectContaining({ from_unique_id: `${M}stg_locations`, to_unique_id: `${M}stores`, to_asset_path: `${REL}stores` })]);
		});

		it('a removed ref() is a removed ref edge and a modified model', async () => {
			const d = await ok(alice, `to=${previews.removed_ref}`);
			expect(d.ref_edges.removed).toEqual([
				{ from_unique_id: `${M}stg_supplies`, to_unique_id: `${M}order_items`, from_asset_path: `${REL}stg_supplies`, to_asset_path: `${REL}order_items` }
			]);
			expect(d.ref_edges.added).toEqual([]);
			expect(d.models.modified.map((m) => m.unique_id)).toEqual([`${M}order_items`]);
			expect(d.models.modified[0].changes).toContain('sql');
			const gone = real.lineage.filter((r) => r.from_node_unique_id === `${M}stg_supplies` && r.to_node_unique_id === `${M}order_items`).length;
			expect(d.column_edges).toEqual({ added: 0, removed: gone });
		});

		it('an added model: added with its columns and ref edge, nothing else', async () => {
			const d = await ok(alice, `to=${previews.added_model}`);
			expect(d.models.added).toEqual([`${M}loyalty`]);
			expect(d.models.removed).toEqual([]);
			expect(d.models.modified).toEqual([]);
			expect(d.columns!.added).toEqual([
				{ asset_path: `${REL}loyalty`, column: 'location_id', type: 'VARCHAR' },
				{ asset_path: `${REL}loyalty`, column: 'tier', type: 'VARCHAR' }
			]);
			expect(d.ref_edges.added).toEqual([expect.objectContaining({ from_unique_id: `${M}locations`, to_unique_id: `${M}loyalty` })]);
			expect(d.column_edges).toEqual({ added: 1, removed: 0 });
			expect(d.classification).toBe('non_breaking');
		});

		it('from equal to to is an empty diff; the reverse of a change is its mirror', async () => {
			for (const q of [`from=${v1}&to=latest`, `from=${previews.added_model}&to=${previews.added_model}`]) {
				const d = await ok(alice, q);
				expect(d.models).toEqual({ added: [], removed: [], renamed: [], modified: [] });
				expect(d.ref_edges).toEqual({ added: [], removed: [] });
				expect(d.classification).toBeNull();
			}
			const back = await ok(alice, `from=${previews.added_model}&to=latest`);
			expect(back.models.removed).toEqual([`${M}loyalty`]);
			expect(back.models.added).toEqual([]);
		});

		it('two versions compare by hash', async () => {
			const a = clone(real);
			MUTATIONS.dropped_column(a);
			const v2 = (await upload(alice, 'deploy', a, 'f/analytics/jaffle_two')).hash!;
			const v1b = (await upload(alice, 'deploy', real, 'f/analytics/jaffle_two')).hash!;
			const r = await alice.get(`/api/w/${WS}/dbt/diff?path=f/analytics/jaffle_two&from=${v2}&to=${v1b}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			expect(r.body.columns.added).toEqual([{ asset_path: `${REL}stg_customers`, column: 'customer_name', type: 'VARCHAR' }]);
			expect(r.body.classification).toBe('non_breaking');
		});

		it("a run's ref is its version's graph, or its own snapshot when it stored one", async () => {
			const record = async (manifest?: unknown) => {
				const f = new FormData();
				f.set('path', PATH);
				f.set('run_results', new Blob([readFileSync(`${JAFFLE}/run_results.json`)]), 'run_results.json');
				if (manifest) f.set('manifest', new Blob([JSON.stringify(manifest)]), 'manifest.json');
				const r = await alice.call('POST', `/api/w/${WS}/jobs/record?path=${PATH}`, { form: f });
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				return r.body.job_id as string;
			};
			const plain = await record();
			const same = await ok(alice, `to=${plain}`);
			expect(same.to).toEqual({ hash: v1, job_id: null });
			expect(same.models).toEqual({ added: [], removed: [], renamed: [], modified: [] });
			const a = clone(real);
			MUTATIONS.added_model(a);
			const own = await record(a.manifest);
			const d = await ok(alice, `to=${own}`);
			expect(d.to).toEqual({ hash: v1, job_id: own });
			expect(d.models.added).toEqual([`${M}loyalty`]);
		});

		describe('gates', () => {
			it('a reader of the project gets the authored diff; an outsider gets the one 404', async () => {
				const d = await ok(carol, `to=${previews.dropped_column}`);
				expect(d.authored).toBe(true);
				expect(d.columns!.removed.length).toBeGreaterThan(0);
				const refused = await diff(bob, `to=${previews.dropped_column}`);
				expect(refused.status).toBe(404);
				expect(refused.body.error).toBe(NO_SUCH_DIFF_REF);
				const latest = await diff(bob, `from=${previews.dropped_column}&to=latest`);
				expect(latest.status).toBe(404);
				expect(latest.body.error).toBe(NO_SUCH_DIFF_REF);
			});

			it('unknown refs, refs of another path or workspace: the same 404', async () => {
				const otherPath = (await upload(alice, 'preview', real, 'f/analytics/elsewhere')).job_id;
				const cases: [ApiClient, string, string][] = [
					[alice, `to=00000000-0000-4000-8000-000000000000`, WS],
					[alice, `to=0123456789abcdef`, WS],
					[alice, `to=not-a-ref`, WS],
					[alice, `to=${otherPath}`, WS],
					[alice, `from=${otherPath}&to=latest`, WS],
					[admin, `to=${previews.added_model}`, 'other']
				];
				for (const [c, q, ws] of cases) {
					const r = await diff(c, q, ws);
					expect(r.status, q).toBe(404);
					expect(r.body.error, q).toBe(NO_SUCH_DIFF_REF);
				}
				const noTo = await diff(alice, 'from=latest');
				expect(noTo.status).toBe(400);
				expect(noTo.body.error).toMatch(/^to:/);
				expect((await alice.get(`/api/w/${WS}/dbt/diff?path=nope&to=latest`)).status).toBe(400);
				expect((await new ApiClient().get(`/api/w/${WS}/dbt/diff?path=${PATH}&to=latest`)).status).toBe(401);
				// A link that is no link is a 401 whatever the ref, as on the job endpoints (not the 404 of a ref it cannot open).
				for (const to of ['latest', previews.dropped_column]) {
					const forged = await new ApiClient().get(`/api/w/${WS}/dbt/diff?path=${PATH}&to=${to}&view_token=${previews.dropped_column}.x.0000`);
					expect([forged.status, forged.body.error], to).toEqual([401, 'this share link is not valid; sign in or ask for a new link']);
				}
			});

			it('a token without scripts:read sees the shape only: no columns, no reasons', async () => {
				const t = await alice.post(`/api/w/${WS}/tokens`, { label: 'shape', scopes: ['assets:read', 'jobs:read'] });
				expect(t.status, JSON.stringify(t.body)).toBe(201);
				const d = await ok(alice.withBearer(t.body.token), `to=${previews.dropped_column}`);
				expect(d.authored).toBe(false);
				expect('columns' in d).toBe(false);
				const m = d.models.modified.find((x) => x.unique_id === `${M}stg_customers`)!;
				expect(m.classification).toBe('breaking');
				expect('reason' in m).toBe(false);
				expect(m.changes).not.toContain('sql');
				expect(JSON.stringify(d)).not.toContain('customer_name');
			});

			it("a token without assets:read is refused for its scope before any ref is looked up", async () => {
				const t = await alice.post(`/api/w/${WS}/tokens`, { label: 'write-only', scopes: ['scripts:write:f/analytics/*'] });
				expect(t.status, JSON.stringify(t.body)).toBe(201);
				for (const to of [previews.dropped_column, '00000000-0000-4000-8000-000000000000']) {
					const r = await diff(alice.withBearer(t.body.token), `to=${to}`);
					expect(r.status).toBe(403);
					expect(r.body.error).toMatch(/assets:read/);
				}
			});

			it('a share link opens its own preview (shape only), never the project it came from', async () => {
				const link = await alice.get(`/api/w/${WS}/jobs/share/${previews.dropped_column}?kind=member`);
				expect(link.status, JSON.stringify(link.body)).toBe(200);
				const token = link.body.token as string;
				const own = await ok(bob, `from=${previews.dropped_column}&to=${previews.dropped_column}&view_token=${token}`);
				expect(own.authored).toBe(false);
				expect(own.models.modified).toEqual([]);
				const against = await diff(bob, `to=${previews.dropped_column}&view_token=${token}`);
				expect(against.status).toBe(404);
				expect(against.body.error).toBe(NO_SUCH_DIFF_REF);
			});
		});

		it('a graph stored before node digests existed is compared by its fields, with the same answer', async () => {
			const before = await ok(alice, `to=${previews.dropped_column}`);
			const { sql } = await import('drizzle-orm');
			await database.rows(sql`update dbt_node set digest = null where workspace = ${WS} and script_path = ${PATH} and script_hash is not null`);
			const after = await ok(alice, `to=${previews.dropped_column}`);
			expect(after).toEqual(before);
			expect(after.models.modified.map((m) => m.unique_id)).toContain(`${M}stg_customers`);
		});

		it("a version whose graph is gone (as the sweep of versions beyond the newest 50 leaves it) answers 410 naming the rule", async () => {
			const old = (await upload(alice, 'deploy', real, 'f/analytics/jaffle_old')).hash!;
			await upload(alice, 'deploy', real, 'f/analytics/jaffle_old');
			await database.db.transaction((tx) => deleteGraph(tx, versionKey(WS, 'f/analytics/jaffle_old', hexToHash(old)!)));
			const r = await alice.get(`/api/w/${WS}/dbt/diff?path=f/analytics/jaffle_old&from=${old}&to=latest`);
			expect(r.status, JSON.stringify(r.body)).toBe(410);
			expect(r.body.error).toContain(`only the newest ${RETENTION.versionsPerPath} deploys of a path keep their graph`);
		});

		it('a preview pruned by retention answers 410 naming the rule', async () => {
			// Each of alice's further previews of the path pushes the oldest out of the newest 5.
			for (let i = 0; i < RETENTION.previewsPerPathAndPrincipal; i++) await upload(alice, 'preview', real);
			const r = await diff(alice, `to=${previews.dropped_column}`);
			expect(r.status, JSON.stringify(r.body)).toBe(410);
			expect(r.body.error).toContain(`newest ${RETENTION.previewsPerPathAndPrincipal} previews per path`);
		});
	});

	/** A mutation applied to a fresh copy, for expectations computed from the mutated files. */
	const MUTATED = Object.fromEntries(
		Object.entries(MUTATIONS).map(([name, mutate]) => [
			name,
			() => {
				const a = clone(real);
				mutate(a);
				return a;
			}
		])
	);
});
