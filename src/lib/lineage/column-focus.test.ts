import { describe, expect, it } from 'vitest';
import { ROOT } from './canvas-groups';
import { layoutLevels } from './canvas-layout';
import { assetNodeId, scriptNodeId } from './canvas-model';
import { producerVia } from './canvas-columns';
import { composeFocus, focusLevel, pathOnCanvas } from './column-focus';
import { buildDbtColumnGraph, buildProducerColumnGraph, columnId, mergeColumnGraphs, traceColumn } from './column-trace';
import { col, edge, producer } from '../../../tests/support/trace-fixtures';

const id = (ref: string) => {
	const c = col(ref);
	return columnId(c.kind, c.path, c.column);
};
const card = (name: string) => {
	const c = col(`${name}.x`);
	return assetNodeId(c.kind, c.path);
};

// stg.amount → orders.amount → (script daily.sql) → lake:daily.total, and orders.amount → finance.amount.
const runnables = [producer('main/jobs/daily.sql', { 'lake:daily.total': ['orders.amount'] })];
const g = mergeColumnGraphs(
	buildDbtColumnGraph([edge('stg.amount', 'orders.amount'), edge('orders.amount', 'finance.amount'), edge('stg.id', 'orders.id')]),
	buildProducerColumnGraph({ runnables })
);
const via = producerVia(runnables.map((r) => ({ path: r.path, column_lineage: r.column_lineage ?? [] })));
const traced = id('orders.amount');
const SCRIPT = scriptNodeId('main/jobs/daily.sql');

describe('pathOnCanvas: a traced column\'s path as canvas cards', () => {
	it('runs a producer edge through its script\'s card, and keys the subset by what it holds', () => {
		const p = pathOnCanvas(traced, traceColumn(traced, g), g, via, () => true);
		expect(p.nodes).toEqual([card('finance'), card('orders'), card('stg'), card('lake:daily'), SCRIPT].sort());
		expect(p.edges.map((e) => [e.source, e.target])).toEqual(
			expect.arrayContaining([
				[card('stg'), card('orders')],
				[card('orders'), card('finance')],
				[card('orders'), SCRIPT],
				[SCRIPT, card('lake:daily')]
			])
		);
		expect(p.edges).toHaveLength(4);
		expect(p.core).toBe(card('orders'));
		expect(pathOnCanvas(traced, traceColumn(traced, g), g, via, () => true).key).toBe(p.key);
	});

	it('leaves out a relation this canvas does not show, and runs straight past a script it does not show', () => {
		const p = pathOnCanvas(traced, traceColumn(traced, g), g, via, (n) => n !== SCRIPT && n !== card('finance'));
		expect(p.nodes).toEqual([card('orders'), card('stg'), card('lake:daily')].sort());
		// The script is not on this canvas: the lake table's edge runs straight from orders.
		expect(p.edges.map((e) => [e.source, e.target])).toEqual([
			[card('orders'), card('lake:daily')],
			[card('stg'), card('orders')]
		]);
		expect(pathOnCanvas(traced, traceColumn(traced, g), g, via, (n) => n !== card('orders')).core).toBeNull();
	});

	it('lays out as one level whose cards compose back at the layout\'s places', () => {
		const p = pathOnCanvas(traced, traceColumn(traced, g), g, via, () => true);
		const level = focusLevel(p);
		expect(level.id).toBe(ROOT);
		const layout = layoutLevels([level])[ROOT];
		const cut = composeFocus(p, layout)!;
		expect(cut.cards.map((c) => c.id)).toEqual(p.nodes);
		for (const e of p.edges) expect(cut.cards.find((c) => c.id === e.target)!.x).toBeGreaterThan(cut.cards.find((c) => c.id === e.source)!.x);
		expect(composeFocus(p, { pos: {}, w: 0, h: 0 })).toBeNull();
		expect(composeFocus(p, undefined)).toBeNull();
	});
});
