// The details pane reads one relation through a page endpoint of its own, so the canvas does not
// carry every relation's SQL. It must say exactly what the asset graph says about that
// relation, to every caller, gates included: compared here relation by relation, caller by
// caller (sessions, a token without scripts:read, a share link), unpinned and pinned, on both
// databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetGraph, GraphAsset } from '../../src/lib/types/asset-graph';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { buildLineageWorld, SECRET, WS, type Caller, type LineageWorld } from '../support/lineage-world';

describe.skipIf(!needFixtures('the relation endpoint')).each(testBackends())('the relation endpoint ($name)', (backend) => {
	let w: LineageWorld;
	let clients: [string, ApiClient][];

	beforeAll(async () => {
		w = await buildLineageWorld(await backend.open());
		const sessions = (['root', 'wsadmin', 'alice', 'carol', 'bob'] as Caller[]).map((c) => [c, w.c[c]] as [string, ApiClient]);
		clients = [...sessions, ['alice, token without scripts:read', await w.token('alice', ['assets:read'])]];
	}, 120_000);

	afterAll(async () => {
		w?.restoreEnv();
		await w?.database.close();
	});

	it('answers what the folder-less asset graph says, for every caller and relation', async () => {
		let compared = 0;
		let redacted = 0;
		for (const [name, c] of clients) {
			const g = await c.get(`/api/w/${WS}/assets/graph`);
			expect(g.status, name).toBe(200);
			const graph = g.body as AssetGraph;
			for (const a of graph.assets.filter((x: GraphAsset) => x.kind === 'dbt' && x.dbt)) {
				const r = await c.get(`/w/${WS}/relation?path=${encodeURIComponent(a.path)}`);
				expect(r.status, `${name} ${a.path}`).toBe(200);
				// The relation read adds the model's column-lineage state, and only for a caller shown the authored fields.
				const { column_lineage: lineageState, ...rest } = r.body;
				expect(rest, `${name} ${a.path}`).toEqual(a.dbt);
				expect(lineageState === undefined, `${name} ${a.path}`).toBe(!a.dbt!.authored);
				if (!a.dbt!.authored) {
					redacted++;
					expect(JSON.stringify(r.body)).not.toContain(SECRET);
				}
				compared++;
			}
		}
		expect(compared).toBeGreaterThan(10);
		// The comparison covered redacted answers, not only full ones.
		expect(redacted).toBeGreaterThan(0);
	});

	it('says nothing about a relation no readable project describes', async () => {
		const r = await w.c.bob.get(`/w/${WS}/relation?path=${encodeURIComponent('main/analytics/orders')}`);
		expect(r.status).toBe(404);
		expect(JSON.stringify(r.body)).not.toContain(SECRET);
		expect((await w.c.anon.get(`/w/${WS}/relation?path=main/analytics/orders`)).status).toBe(401);
	});

	it('a run page reads the relation as the run pinned it, share links included', async () => {
		const link = (await w.c.alice.get(`/api/w/${WS}/jobs/share/${w.jobs.RUN2}?kind=public`)).body.token as string;
		const viewers: [string, ApiClient, string][] = [
			['alice', w.c.alice, ''],
			['a public link, no session', w.c.anon, `view_token=${link}`]
		];
		for (const [name, c, q] of viewers) {
			const g = await c.get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN2}${q ? `?${q}` : ''}`);
			expect(g.status, name).toBe(200);
			const assets = (g.body as AssetGraph).assets.filter((a) => a.dbt);
			expect(assets.length).toBeGreaterThan(0);
			for (const a of assets) {
				const r = await c.get(`/w/${WS}/run/${w.jobs.RUN2}/relation?path=${encodeURIComponent(a.path)}${q ? `&${q}` : ''}`);
				expect(r.status, `${name} ${a.path}`).toBe(200);
				const { column_lineage: lineageState, ...rest } = r.body;
				expect(rest).toEqual(a.dbt);
				expect(lineageState === undefined).toBe(!a.dbt!.authored);
			}
			if (!q) continue;
			// Through a link, nothing authored.
			for (const a of assets) expect(a.dbt!.authored).toBe(false);
		}
	});
});
