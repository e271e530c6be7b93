import { describe, expect, it } from 'vitest';
import { parseDescriptor } from './descriptor';
import { IngestError } from './errors';

const DEFAULTS = {
	warehouse: 'main',
	select: [],
	exclude: [],
	selector: null,
	vars: {},
	testBehavior: 'build',
	columnLineage: false,
	retryFailedNodes: null,
	warnings: []
};

describe('parseDescriptor: defaults', () => {
	it.each([[undefined], [null], [''], ['   \n'], ['# only a comment\n'], ['~\n']])('%j → defaults', (text) => {
		expect(parseDescriptor(text)).toEqual(DEFAULTS);
	});
});

describe('parseDescriptor: fields', () => {
	it('reads every field of a full descriptor', () => {
		const text = [
			'profile:',
			'  warehouse: eu-west_2',
			'select: ["tag:nightly+", "path:models/marts"]',
			'exclude: tag:slow',
			'selector: nightly_models',
			'vars:',
			'  run_date: "{{ run_date }}"',
			'  strict: false',
			'  limit: 10',
			'  regions: [eu, us]',
			'test_behavior: after_all',
			'column_lineage: true',
			'retry_failed_nodes:',
			'  attempts: 3',
			'  delay: 2.5'
		].join('\n');
		expect(parseDescriptor(text)).toEqual({
			warehouse: 'eu-west_2',
			select: ['tag:nightly+', 'path:models/marts'],
			exclude: ['tag:slow'],
			selector: 'nightly_models',
			vars: { run_date: '{{ run_date }}', strict: false, limit: 10, regions: ['eu', 'us'] },
			testBehavior: 'after_all',
			columnLineage: true,
			retryFailedNodes: { attempts: 3, delay: 2.5 },
			warnings: []
		});
	});

	it.each([
		['select: "tag:a"', { select: ['tag:a'] }],
		['select: ["  tag:a ", "", "b"]', { select: ['tag:a', 'b'] }],
		['select: []', { select: [] }],
		['exclude: [x, y]', { exclude: ['x', 'y'] }],
		['test_behavior: none', { testBehavior: 'none' }],
		['test_behavior: build', { testBehavior: 'build' }],
		['column_lineage: false', { columnLineage: false }],
		['profile: {}', {}],
		['profile: {warehouse: analytics}', { warehouse: 'analytics' }],
		['retry_failed_nodes: {attempts: 0}', { retryFailedNodes: { attempts: 0, delay: 0 } }],
		['vars: ~', {}],
		['select: ~', {}]
	])('%s', (text, expected) => {
		expect(parseDescriptor(text)).toEqual({ ...DEFAULTS, ...expected });
	});

	it('keeps an unknown setting as a warning instead of refusing the deploy', () => {
		const d = parseDescriptor('selct: tag:a\ncolumn_lineage: true');
		expect(d.columnLineage).toBe(true);
		expect(d.warnings).toEqual(['descriptor: unknown setting `selct` was ignored']);
	});
});

describe('parseDescriptor: refusals name the descriptor and the field', () => {
	it.each([
		['select: [tag:a, 3]', 'select[1]'],
		['select: {a: 1}', 'select'],
		['exclude: 7', 'exclude'],
		['selector: [a]', 'selector'],
		['selector: ""', 'selector'],
		['vars: [a, b]', 'vars'],
		['vars: "x=1"', 'vars'],
		['test_behavior: always', 'test_behavior'],
		['test_behavior: true', 'test_behavior'],
		['column_lineage: "yes"', 'column_lineage'],
		['column_lineage: 1', 'column_lineage'],
		['profile: main', 'profile'],
		['profile: {warehouse: "a/b"}', 'profile.warehouse'],
		['profile: {warehouse: 5}', 'profile.warehouse'],
		['retry_failed_nodes: 3', 'retry_failed_nodes'],
		['retry_failed_nodes: {attempts: -1}', 'retry_failed_nodes.attempts'],
		['retry_failed_nodes: {attempts: 1.5}', 'retry_failed_nodes.attempts'],
		['retry_failed_nodes: {attempts: 11}', 'retry_failed_nodes.attempts'],
		['retry_failed_nodes: {delay: 5}', 'retry_failed_nodes.attempts'],
		['retry_failed_nodes: {attempts: 2, delay: -1}', 'retry_failed_nodes.delay'],
		['retry_failed_nodes: {attempts: 2, delay: soon}', 'retry_failed_nodes.delay']
	])('%s → field %s', (text, field) => {
		let caught: unknown;
		try {
			parseDescriptor(text);
		} catch (e) {
			caught = e;
		}
		expect(caught).toBeInstanceOf(IngestError);
		const err = caught as IngestError;
		expect(err.file).toBe('descriptor');
		expect(err.field).toBe(field);
		expect(err.status).toBe(400);
		expect(err.message).toMatch(new RegExp(`^descriptor \\(${field.replace(/[.[\]]/g, '\\$&')}\\): `));
	});

	it.each([
		['select: [tag:a\nexclude: b', /descriptor: is not valid YAML: .*line \d+, column \d+/],
		['a: 1\na: 2', /descriptor: is not valid YAML: Map keys must be unique/],
		['- tag:a\n- tag:b', /descriptor: must be a YAML mapping of settings, not a list/],
		['just a string', /descriptor: must be a YAML mapping of settings, not "just a string"/],
		['a: 1\n---\nb: 2', /descriptor: is not valid YAML/]
	])('%j → %s', (text, message) => {
		expect(() => parseDescriptor(text)).toThrow(message);
	});
});
