import { describe, expect, it, vi } from 'vitest';
import { buildGroupTree } from '$lib/lineage/canvas-groups';
import { layoutLevels } from '$lib/lineage/canvas-layout';
import { assetNodeId, digestOf, scriptNodeId, type CanvasEdge, type CanvasNode } from '$lib/lineage/canvas-model';
import { levelsOf } from '$lib/lineage/canvas-view';
import { columnId, edgesAmong } from '$lib/lineage/column-trace';
import { col, edge, producer, traceFixtures } from '../../../tests/support/trace-fixtures';
import type { ColumnLineageAnswer, ColumnLineageEdge, DbtProvenance, GraphRunnable } from '$lib/types/asset-graph';
import { CanvasState } from './canvas.svelte';
import { CanvasColumns } from './canvas-columns.svelte';

/** A canvas holding every asset a fixture names (and its producers' scripts), all cards laid out at the root. */
function canvasOf(answers: ColumnLineageEdge[][], producers: GraphRunnable[] = []) {
	const nodes = new Map<string, CanvasNode>();
	const edges: CanvasEdge[] = [];
	const asset = (kind: string, path: string) => {
		const id = assetNodeId(kind, path);
		if (!nodes.has(id)) nodes.set(id, { id, type: 'asset', kind, path, name: path.slice(path.lastIndexOf('/') + 1), schema: path.slice(0, path.lastIndexOf('/')) });
		return id;
	};
	for (const e of answers.flat()) {
		const a = asset('dbt', e.from_asset_path);
		const b = asset('dbt', e.to_asset_path);
		if (a !== b) edges.push({ source: a, target: b, kind: 'ref' });
	}
	for (const p of producers) {
		const s = scriptNodeId(p.path);
		nodes.set(s, { id: s, type: 'runnable', kind: 'sql', path: p.path, name: p.path.slice(p.path.lastIndexOf('/') + 1), schema: 'f/x' });
		for (const o of p.column_lineage ?? []) {
			edges.push({ source: s, target: asset(o.asset_kind, o.asset_path), kind: 'write' });
			for (const i of o.inputs) edges.push({ source: asset(i.from_kind, i.from_path), target: s, kind: 'read' });
		}
	}
	const list = [...nodes.values()];
	const canvas = new CanvasState(async (levels) => layoutLevels(levels));
	const tree = buildGroupTree(list, edges);
	canvas.load({ canvas: { nodes: list, edges, projects: [], hidden: 0, digest: digestOf(list.map((n) => n.id).join()) }, open: [], layouts: layoutLevels(levelsOf(tree, new Set())) });
	return canvas;
}

const idOf = (ref: string) => {
	const c = col(ref);
	return columnId(c.kind, c.path, c.column);
};
const cardOf = (ref: string) => {
	const c = col(`${ref}.x`);
	return assetNodeId(c.kind, c.path);
};

function columnsFor(canvas: CanvasState, answers: ColumnLineageEdge[][], o: { relation?: (p: string) => Promise<DbtProvenance | null>; scan?: ColumnLineageEdge[]; authored?: boolean } = {}) {
	const all = answers.flat();
	// The read answers a relation's whole column component (here: every edge of the fixture that the relation's columns reach).
	const lineage = vi.fn(async (p: string): Promise<ColumnLineageAnswer> => {
		const reach = new Set([p]);
		for (let grown = true; grown; ) {
			grown = false;
			for (const e of all) {
				if (reach.has(e.from_asset_path) !== reach.has(e.to_asset_path)) {
					reach.add(e.from_asset_path);
					reach.add(e.to_asset_path);
					grown = true;
				}
			}
		}
		return { edges: all.filter((e) => reach.has(e.from_asset_path)), truncated: false };
	});
	const scan = vi.fn(async (_path: string): Promise<ColumnLineageAnswer> => ({ edges: [], truncated: false, scan_edges: o.scan ?? [], scan_truncated: false }));
	const relation = vi.fn(o.relation ?? (async () => null));
	const c = new CanvasColumns(canvas, { lineage, relation, scan, pin: { kind: 'unpinned' }, authored: o.authored ?? true });
	return { c, lineage, scan, relation };
}

describe('CanvasColumns over the named trace graphs', () => {
	for (const f of traceFixtures.filter((x) => x.traces && x.answers.flat().length < 100)) {
		it(`${f.name}: a traced column lights its impact set, drawn row to row on the canvas`, async () => {
			const canvas = canvasOf(f.answers, f.producers);
			const { c } = columnsFor(canvas, f.answers);
			c.setProducers((f.producers ?? []).map((p) => ({ path: p.path, column_lineage: p.column_lineage! })));
			for (const t of f.traces!) {
				await c.toggle(cardOf(t.from.slice(0, t.from.lastIndexOf('.'))));
				c.trace(idOf(t.from));
				expect([...c.impact!].sort()).toEqual(t.expect.map(idOf).sort());
				// Every column of the trace has a row on its card, and every edge among them is drawn.
				for (const m of t.expect) expect(c.rowIndex.has(idOf(m)), m).toBe(true);
				expect(c.paths.count).toBe(edgesAmong(c.impact!, c.graph).length);
				c.trace(null);
				c.reset();
			}
		});
	}
});

describe('CanvasColumns', () => {
	const answers = [[edge('stg_orders.amount', 'orders.amount'), edge('stg_orders.id', 'orders.id'), edge('orders.amount', 'totals.amount', 'mod')]];

	it('expands a relation into its analyzed columns, typed and in order, and folds it back', async () => {
		const canvas = canvasOf(answers);
		const schema = [
			{ name: 'id', type: 'integer' },
			{ name: 'status', type: 'varchar' },
			{ name: 'amount', type: 'decimal(10,2)' }
		];
		const { c, lineage, relation } = columnsFor(canvas, answers, { relation: async () => ({ column_schema: schema }) as unknown as DbtProvenance });
		const orders = cardOf('orders');
		await c.toggle(orders);
		expect(relation).toHaveBeenCalledWith('main/s/orders');
		expect(lineage.mock.calls.map((x) => x[0])).toEqual(['main/s/orders']);
		expect(c.rows.get(orders)!.shown.map((r) => `${r.name}:${r.type}`)).toEqual(['id:integer', 'status:varchar', 'amount:decimal(10,2)']);
		expect(c.heightOf(orders)).toBeGreaterThan(0);
		// Raised above its neighbours while expanded.
		expect(c.css).toContain(orders);
		c.trace(columnId('dbt', 'main/s/orders', 'amount'));
		expect(c.impact!.size).toBe(3);
		// The cards the trace reaches show the traced columns only.
		expect(c.rows.get(cardOf('stg_orders'))!.shown.map((r) => r.name)).toEqual(['amount']);
		expect(c.paths.copy).not.toBe('');
		expect(c.paths.mod).not.toBe('');
		await c.toggle(orders);
		expect(c.expanded.size).toBe(0);
		// Folding the traced column's card ends the trace.
		expect(c.traced).toBeNull();
		expect(c.rows.size).toBe(0);
	});

	it('a lake table asks for the dbt relations its producer reads, and the trace crosses the script\'s card', async () => {
		const prod = producer('f/x/report', { 'lake:report.total': ['orders.amount'] }, 'mod');
		const canvas = canvasOf(answers, [prod]);
		const { c, lineage } = columnsFor(canvas, answers);
		c.setProducers([{ path: prod.path, column_lineage: prod.column_lineage! }]);
		const lake = assetNodeId('ducklake', 'main/report');
		await c.toggle(lake);
		expect(lineage.mock.calls.map((x) => x[0])).toEqual(['main/s/orders']);
		expect(c.rows.get(lake)!.shown.map((r) => r.name)).toEqual(['total']);
		c.trace(idOf('lake:report.total'));
		expect([...c.impact!].sort()).toEqual(['lake:report.total', 'orders.amount', 'stg_orders.amount'].map(idOf).sort());
		// The producer edge is drawn through the script's card: two curves in one edge.
		const script = canvas.placed.get(scriptNodeId('f/x/report'))!;
		const mid = (script.y + script.h / 2).toFixed(1);
		expect([script.x, script.x + script.w].some((x) => c.paths.mod.includes(`${x.toFixed(1)},${mid}`))).toBe(true);
	});

	it('reads nothing for a viewer who may not see columns', async () => {
		const canvas = canvasOf(answers);
		const { c, lineage, relation, scan } = columnsFor(canvas, answers, { authored: false });
		await c.toggle(cardOf('orders'));
		await c.setScan(true);
		expect(lineage).not.toHaveBeenCalled();
		expect(relation).not.toHaveBeenCalled();
		expect(scan).not.toHaveBeenCalled();
		expect(c.graph.nodes.size).toBe(0);
	});

	it('fetches scan edges only when the lens is on, and keeps them out of the trace', async () => {
		const canvas = canvasOf(answers);
		const scanEdge = edge('stg_orders.id', 'orders.amount', 'scan');
		const { c, scan } = columnsFor(canvas, answers, { scan: [scanEdge] });
		await c.toggle(cardOf('orders'));
		await c.toggle(cardOf('stg_orders'));
		expect(scan).not.toHaveBeenCalled();
		expect(c.scanPaths.count).toBe(0);
		await c.setScan(true);
		expect(scan.mock.calls.map((x) => x[0]).sort()).toEqual(['main/s/orders', 'main/s/stg_orders']);
		expect(c.scanPaths.count).toBe(1);
		c.trace(idOf('orders.amount'));
		// stg_orders.id reaches orders.amount only by scan: not part of its trace.
		expect(c.impact!.has(idOf('stg_orders.id'))).toBe(false);
		expect(c.graph.down.get(idOf('stg_orders.id'))?.has(idOf('orders.amount')) ?? false).toBe(false);
		await c.setScan(false);
		expect(c.scanPaths.count).toBe(0);
	});
});

describe('CanvasColumns and the details the page holds', () => {
	it('expands the selected relation from the details already read, asking nothing more of it', async () => {
		const answers = [[edge('stg_orders.amount', 'orders.amount')]];
		const canvas = canvasOf(answers);
		const all = answers.flat();
		const relation = vi.fn(async () => null);
		const held = { column_schema: [{ name: 'amount', type: 'double' }, { name: 'id', type: 'bigint' }] } as unknown as DbtProvenance;
		const c = new CanvasColumns(canvas, {
			lineage: async () => ({ edges: all, truncated: false }),
			relation,
			scan: async () => ({ edges: [], truncated: false }),
			pin: { kind: 'unpinned' },
			authored: true,
			known: (p) => (p === 'main/s/orders' ? held : null)
		});
		const done = c.toggle(cardOf('orders'));
		// Drawn before any answer arrives.
		expect(c.rows.get(cardOf('orders'))!.shown.map((r) => `${r.name}:${r.type}`)).toEqual(['amount:double', 'id:bigint']);
		await done;
		expect(relation).not.toHaveBeenCalled();
		await c.toggle(cardOf('stg_orders'));
		expect(relation).toHaveBeenCalledWith('main/s/stg_orders');
	});
});
