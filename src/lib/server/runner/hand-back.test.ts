import { describe, expect, it } from 'vitest';
import { handBackRule } from './hand-back';

describe('handBackRule: which jobs a stopping worker re-queues', () => {
	it('re-queues a lineage job: it stores its result only at its end', () => {
		expect(handBackRule('lineage', [], 'SIGTERM')).toEqual({
			requeue: true,
			line: 'the worker running this lineage job stopped (SIGTERM); the job is back in the queue and runs again from the start on the next worker (the graph keeps the column lineage it had until then)'
		});
	});

	it('re-queues a run that started no dbt command yet', () => {
		expect(handBackRule('run', [], 'SIGINT')).toEqual({
			requeue: true,
			line: 'the worker running this job stopped (SIGINT) before dbt started; the job is back in the queue and runs again from the start on the next worker'
		});
	});

	it('re-queues a run whose dbt commands only read, naming them', () => {
		expect(handBackRule('run', ['compile'], 'SIGTERM').line).toBe(
			'the worker running this job stopped (SIGTERM); dbt compile only reads, so the job is back in the queue and runs again from the start on the next worker'
		);
		for (const commands of [['parse'], ['show'], ['deps', 'parse', 'compile'], ['parse', 'parse']]) expect(handBackRule('run', commands).requeue).toBe(true);
		expect(handBackRule('run', ['deps', 'parse']).line).toContain('dbt deps and parse only read, so');
	});

	it('fails a run once a building command started, naming the last one', () => {
		for (const c of ['build', 'run', 'test', 'seed', 'snapshot', 'retry']) expect(handBackRule('run', ['parse', c]).requeue).toBe(false);
		expect(handBackRule('run', ['compile', 'build', 'test'], 'SIGTERM')).toEqual({
			requeue: false,
			line: 'the worker running this job stopped (SIGTERM) while dbt test ran: not re-queued, as it may already have changed the warehouse (run it again to finish it)'
		});
	});

	it('never re-queues a kind of job it does not know', () => {
		expect(handBackRule('export', [], 'SIGTERM')).toEqual({ requeue: false, line: 'the worker running this job stopped (SIGTERM): not re-queued' });
	});

	it('says only that the worker stopped when no signal is named', () => {
		expect(handBackRule('run', []).line).toMatch(/^the worker running this job stopped before dbt started;/);
	});
});
