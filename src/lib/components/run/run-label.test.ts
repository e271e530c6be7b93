import { describe, expect, it } from 'vitest';
import { jobVerb, runLabel } from './run-label';

const at = '2026-12-07T17:40:00.000Z';
const fixed = () => '7 Dec, 17:40';

describe('a job named by what it did, to what, when', () => {
	it.each([
		[{ kind: 'run', command: 'build', scriptPath: 'f/demo/shop', createdAt: at }, 'build · f/demo/shop · 7 Dec, 17:40'],
		[{ kind: 'recorded', command: 'build', scriptPath: 'f/demo/shop', createdAt: at }, 'recorded build · f/demo/shop · 7 Dec, 17:40'],
		[{ kind: 'deploy', command: null, scriptPath: 'f/demo/shop', createdAt: at }, 'deploy · f/demo/shop · 7 Dec, 17:40'],
		[{ kind: 'openlineage', command: null, scriptPath: null, createdAt: at }, 'OpenLineage run · 7 Dec, 17:40']
	])('%j', (job, want) => {
		expect(runLabel(job, fixed)).toBe(want);
	});

	it('a command that is not a word is not shown as one', () => {
		expect(jobVerb({ kind: 'run', command: '<script>' })).toBe('run');
		expect(jobVerb({ kind: 'run', command: null })).toBe('run');
	});

	it('formats the time itself by default', () => {
		expect(runLabel({ kind: 'run', command: 'test', scriptPath: 'f/a/b', createdAt: at })).toMatch(/^test · f\/a\/b · \d{1,2} Dec, \d{2}:\d{2}$/);
	});
});
