import { describe, expect, it } from 'vitest';
import { isLens, lensEntries, lensKey, LENSES, worstTest, type LensNode } from './canvas-lens';

const model = (materialized: string | null, tests = { error: 0, warn: 0 }): LensNode => ({ type: 'asset', kind: 'dbt', resourceType: 'model', materialized, tests });
const source: LensNode = { type: 'asset', kind: 'dbt', resourceType: 'source', materialized: null };
const lake: LensNode = { type: 'asset', kind: 'ducklake' };
const script: LensNode = { type: 'runnable', kind: 'sql' };

describe('lenses', () => {
	it.each([
		['type', model('table'), undefined, undefined, 'model'],
		['type', source, undefined, undefined, 'source'],
		['type', lake, undefined, undefined, 'lake'],
		['type', script, undefined, undefined, 'script'],
		['type', { type: 'asset', kind: 'dbt', resourceType: 'analysis' }, undefined, undefined, 'other'],
		['materialization', model('incremental'), undefined, undefined, 'incremental'],
		['materialization', model('view'), undefined, undefined, 'view'],
		['materialization', model('custom_thing'), undefined, undefined, 'other'],
		['materialization', source, undefined, undefined, 'none'],
		['materialization', lake, undefined, undefined, 'none'],
		['run', model('table'), 'failed', undefined, 'failed'],
		['run', model('table'), 'materialized', undefined, 'built'],
		['run', model('table'), 'passed', undefined, 'built'],
		['run', model('table'), undefined, undefined, 'none'],
		['tests', model('table', { error: 2, warn: 0 }), undefined, 'fail', 'fail'],
		['tests', model('table', { error: 2, warn: 0 }), undefined, undefined, 'untested'],
		['tests', model('table'), undefined, undefined, 'none'],
		['none', model('table'), 'failed', 'fail', null]
	] as const)('%s of %j (run %s, tests %s) is %s', (lens, node, run, test, want) => {
		const key = lensKey(lens, node as LensNode, run, test);
		expect(key).toBe(want);
		if (key) expect(lensEntries(lens).map((e) => e.key)).toContain(key);
	});

	it.each([
		[['pass', 'warn', 'fail', 'pass'], 'fail'],
		[['pass', 'warn'], 'warn'],
		[['warn', 'pass'], 'warn'],
		[['pass'], 'pass'],
		[[], undefined]
	] as const)('the worst of %j is %s', (results, want) => {
		expect(worstTest(results)).toBe(want);
	});

	it('names every lens, and nothing else is one', () => {
		for (const l of LENSES) expect(isLens(l.id)).toBe(true);
		expect(isLens('sideways')).toBe(false);
	});
});
