import { describe, expect, it } from 'vitest';
import {
	assetColumns,
	buildDbtColumnGraph,
	buildProducerColumnGraph,
	columnId,
	connectedComponent,
	dbtRelationsOf,
	edgesAmong,
	mergeColumnGraphs,
	traceColumn,
	traceLanes,
	type ColumnGraph,
	type ColumnId,
	TRACE,
	traceScrollLeft
} from './column-trace';
import { col, edge, producer, storageGraphsAsAnswers, traceFixtures, type TraceFixture } from '../../../tests/support/trace-fixtures';

const idOf = (ref: string) => {
	const c = col(ref);
	return columnId(c.kind, c.path, c.column);
};

/** Back to the fixture's `asset.column` spelling, so failures read like the fixtures. */
function refOf(id: ColumnId, g: ColumnGraph): string {
	const n = g.nodes.get(id)!;
	const asset = n.kind === 'ducklake' ? `lake:${n.path.slice('main/'.length)}` : n.path.slice('main/s/'.length);
	return `${asset}.${n.column}`;
}

const refs = (ids: Iterable<ColumnId>, g: ColumnGraph) => [...ids].map((i) => refOf(i, g)).sort();

function assetOf(ref: string) {
	const c = col(`${ref}.x`);
	return { kind: c.kind, path: c.path };
}

function graphOf(f: TraceFixture): ColumnGraph {
	return mergeColumnGraphs(...f.answers.map(buildDbtColumnGraph), buildProducerColumnGraph({ runnables: f.producers ?? [] }));
}

describe('the trace over named graphs', () => {
	describe.each(traceFixtures)('$name', (f) => {
		const g = graphOf(f);

		it.each(f.traces ?? [])('tracing $from', ({ from, expect: want }) => {
			expect(refs(traceColumn(idOf(from), g), g)).toEqual([...want].sort());
		});

		it.each(f.components ?? [])('component of $seeds', ({ seeds, expect: want }) => {
			expect(refs(connectedComponent(seeds.map(idOf), g), g)).toEqual([...want].sort());
		});

		it.each(f.relations ?? [])('dbt relations to fetch for $of', ({ of, expect: want }) => {
			// Decided on the producer half alone: that is all the page holds before fetching.
			const p = buildProducerColumnGraph({ runnables: f.producers ?? [] });
			const a = assetOf(of);
			const comp = connectedComponent(assetColumns(p, a.kind, a.path), p);
			expect(dbtRelationsOf(comp, p)).toEqual(want.map((n) => `main/s/${n}`));
		});

		it.each(f.lanes ?? [])('lanes around $of', ({ of, expect: want }) => {
			const a = assetOf(of);
			const comp = connectedComponent(assetColumns(g, a.kind, a.path), g);
			const lanes = traceLanes(comp, g);
			const names = lanes.map((l) => l.assets.map((x) => (x.kind === 'ducklake' ? `lake:${x.path.slice(5)}` : x.path.slice(7))).sort());
			expect(names).toEqual(want);
			// Sources left: every edge among the traced columns points to a later lane.
			const laneOf = new Map<string, number>();
			lanes.forEach((l, i) => l.assets.forEach((x) => x.columns.forEach((c) => laneOf.set(c, i))));
			if (f.name !== 'cycle') for (const e of edgesAmong(comp, g)) expect(laneOf.get(e.to)!).toBeGreaterThan(laneOf.get(e.from)!);
		});
	});
});

describe('the storage fixtures hold for the wire graph', () => {
	// Same shapes the ingest and the server walk are tested on: the browser's graph must agree
	// on what is connected, or a trace would show a different lineage than the server served.
	it.each(storageGraphsAsAnswers)('$name', ({ answer, components }) => {
		const g = buildDbtColumnGraph(answer);
		const seen = new Set<ColumnId>();
		const got: string[][] = [];
		for (const id of g.nodes.keys()) {
			if (seen.has(id)) continue;
			const comp = connectedComponent([id], g);
			for (const c of comp) seen.add(c);
			got.push(refs(comp, g));
		}
		got.sort((a, b) => a[0].localeCompare(b[0]));
		expect(got).toEqual(components);
	});
});

describe('edge styles', () => {
	it('keeps copy and mod apart, and mod wins when both join one pair', () => {
		const g = buildDbtColumnGraph([edge('a.x', 'b.x'), edge('a.y', 'b.y', 'mod'), edge('a.z', 'b.z'), edge('a.z', 'b.z', 'mod')]);
		const styles = Object.fromEntries(edgesAmong(new Set(g.nodes.keys()), g).map((e) => [refOf(e.to, g), e.style]));
		expect(styles).toEqual({ 'b.x': 'copy', 'b.y': 'mod', 'b.z': 'mod' });
	});

	it.each([
		{ kind: null, style: 'producer' },
		{ kind: 'copy' as const, style: 'copy' },
		{ kind: 'mod' as const, style: 'mod' }
	])('a producer input of kind $kind is drawn as $style', ({ kind, style }) => {
		const g = buildProducerColumnGraph({ runnables: [producer('f/x/p', { 'lake:r.total': ['orders.amount'] }, kind)] });
		expect(edgesAmong(new Set(g.nodes.keys()), g).map((e) => e.style)).toEqual([style]);
	});
});

describe('lanes', () => {
	it('orders columns by the asset schema when given, by name otherwise', () => {
		const g = buildDbtColumnGraph([edge('a.b', 'm.b'), edge('a.a', 'm.a'), edge('a.c', 'm.c')]);
		const lanes = traceLanes(new Set(g.nodes.keys()), g, {
			columnOrder: (_k, path) => (path === 'main/s/m' ? ['c', 'a', 'b'] : undefined)
		});
		expect(lanes[0].assets[0].columns.map((c) => g.nodes.get(c)!.column)).toEqual(['a', 'b', 'c']);
		expect(lanes[1].assets[0].columns.map((c) => g.nodes.get(c)!.column)).toEqual(['c', 'a', 'b']);
	});

	it('puts the selected relation first in its lane', () => {
		const g = buildDbtColumnGraph([edge('a.x', 'b.x'), edge('a.x', 'c.x')]);
		const lanes = traceLanes(new Set(g.nodes.keys()), g, { selected: { kind: 'dbt', path: 'main/s/c' } });
		expect(lanes[1].assets.map((a) => a.path)).toEqual(['main/s/c', 'main/s/b']);
	});

	it('lays out a 10,000-wide fan-out', () => {
		const g = buildDbtColumnGraph(Array.from({ length: 10_000 }, (_, i) => edge('s.id', `m${i}.id`)));
		const lanes = traceLanes(connectedComponent([idOf('s.id')], g), g);
		expect(lanes.map((l) => l.assets.length)).toEqual([1, 10_000]);
	});
});

describe('traceScrollLeft', () => {
	const lane = (k: number) => ({ x: TRACE.pad + k * (TRACE.laneW + TRACE.gap), w: TRACE.laneW });
	const planeOf = (lanes: number) => TRACE.pad * 2 + lanes * TRACE.laneW + (lanes - 1) * TRACE.gap;
	it.each([
		{ name: 'fits from the left', k: 1, view: 500, lanes: 4 },
		{ name: 'the last of four lanes in a pane', k: 3, view: 500, lanes: 4 },
		{ name: 'the last of four lanes over the canvas', k: 3, view: 922, lanes: 4 },
		{ name: 'a middle lane of ten', k: 5, view: 700, lanes: 10 },
		{ name: 'a view narrower than a lane', k: 2, view: 150, lanes: 3 }
	])('$name: starts at a lane boundary, shows the target when it fits', ({ k, view, lanes }) => {
		const at = lane(k);
		const { left, extra } = traceScrollLeft(at, view, planeOf(lanes));
		const step = TRACE.laneW + TRACE.gap;
		expect(left % step).toBe(0);
		// No box is cut by the left edge.
		for (let i = 0; i < lanes; i++) {
			const b = lane(i);
			expect(b.x >= left || b.x + b.w <= left, `lane ${i}`).toBe(true);
		}
		if (view >= at.w + 2 * TRACE.pad) expect(at.x + at.w).toBeLessThanOrEqual(left + view);
		// The scroller can get there.
		expect(planeOf(lanes) + extra - view).toBeGreaterThanOrEqual(left);
	});
});
