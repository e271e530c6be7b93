import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { metric, type Metric } from './lib';
import { mergeDocument, quickGate, resultsFile, saveMetrics } from './results';

const M = { cpus: 2, memory_gb: 24, node: 'v20' };

describe('metric', () => {
	it.each([
		['lower, under goal', 80, 'lower', 100, true],
		['lower, over goal', 120, 'lower', 100, false],
		['higher, over goal', 60, 'higher', 50, true],
		['higher, under goal', 2, 'higher', 50, false],
		['no goal', 5, 'lower', null, null]
	] as const)('%s', (_n, value, better, goal, met) => {
		expect(metric('x', value, 'ms', 'pglite', { goal, better }).met).toBe(met);
	});

	it('keeps the spread of a median', () => {
		const m = metric('x', { median: 5, min: 4, max: 9, runs: 3 }, 'ms', 'postgres', { goal: 10 });
		expect(m).toMatchObject({ value: 5, min: 4, max: 9, runs: 3, met: true, database: 'postgres' });
	});
});

describe('mergeDocument', () => {
	it('replaces metrics of the same name and keeps the others with their time', () => {
		const first = mergeDocument(null, [metric('a', 1, 'ms', 'pglite'), metric('b', 2, 'ms', 'pglite')], 'one', 'pglite', false, '2026-01-01T00:00:00Z', M);
		const second = mergeDocument(first, [metric('b', 3, 'ms', 'pglite')], 'two', 'pglite', false, '2026-02-01T00:00:00Z', M);
		expect(second.results.map((r) => [r.name, r.value, r.bench, r.when])).toEqual([
			['a', 1, 'one', '2026-01-01T00:00:00Z'],
			['b', 3, 'two', '2026-02-01T00:00:00Z']
		]);
		expect(second).toMatchObject({ when: '2026-02-01T00:00:00Z', database: 'pglite', machine: M });
		expect(second.results[0]).not.toHaveProperty('database');
	});
});

describe('saveMetrics', () => {
	it('writes one document per database, and quick runs elsewhere', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'bench-results-'));
		const written = saveMetrics([metric('a', 1, 'ms', 'pglite'), metric('a', 2, 'ms', 'postgres')], 'one', true, dir);
		expect(written).toEqual([resultsFile('pglite', true, dir), resultsFile('postgres', true, dir)]);
		expect(written.every((f) => f.includes(`${path.sep}out${path.sep}`))).toBe(true);
		const doc = JSON.parse(readFileSync(written[1], 'utf8'));
		expect(doc).toMatchObject({ database: 'postgres', quick: true, results: [{ name: 'a', value: 2 }] });
		expect(resultsFile('pglite', false, dir)).toBe(path.join(dir, 'results.json'));
	});
});

describe('quickGate', () => {
	const ratio = (name: string, value: number, goal: number, better: 'lower' | 'higher'): Metric => metric(name, value, 'ratio', 'pglite', { goal, better });
	it.each([
		['higher: above half the goal passes', ratio('r', 30, 50, 'higher'), undefined, false],
		['higher: below half the goal fails', ratio('r', 20, 50, 'higher'), undefined, true],
		['lower: within twice the goal passes', ratio('r', 2.5, 1.3, 'lower'), undefined, false],
		['lower: beyond twice the goal fails', ratio('r', 2.7, 1.3, 'lower'), undefined, true],
		['a known miss is held at half its recorded value', ratio('r', 1.2, 50, 'higher'), { value: 1.9, met: false }, false],
		['a known miss that regresses further fails', ratio('r', 0.8, 50, 'higher'), { value: 1.9, met: false }, true],
		['a met goal in the record keeps the goal as base', ratio('r', 20, 50, 'higher'), { value: 60, met: true }, true],
		['NaN fails', ratio('r', NaN, 1.3, 'lower'), undefined, true]
	] as const)('%s', (_n, m, ref, fails) => {
		expect(quickGate([m], () => ref).length > 0).toBe(fails);
	});

	it('ignores figures that are not ratios', () => {
		expect(quickGate([metric('ms', 5000, 'ms', 'pglite', { goal: 100 })], () => undefined)).toEqual([]);
	});
});
