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
	engine: { kind: 'dbt-core', version: null, adapterVersion: null },
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
			'  delay: 2.5',
			'engine:',
			'  version: "1.12"',
			'  adapter_version: "1.11.1"'
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
			engine: { kind: 'dbt-core', version: '==1.12.*', adapterVersion: '==1.11.1' },
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

// Every value that reaches dbt's argv: a selector is its own argv word, so one that
// starts with `-` is an option smuggled in; a NUL cannot be passed to a process at all.
describe('parseDescriptor: values that reach dbt are refused when they would not be what they say', () => {
	const long = 'a'.repeat(1001);
	it.each([
		['select: ["orders", "--target-path", "/elsewhere"]', 'select[1]', /must not start with "-"/],
		['select: "--full-refresh"', 'select[0]', /must not start with "-"/],
		['exclude: [ok, " -x"]', 'exclude[1]', /must not start with "-"/],
		['select: ["a\\0b"]', 'select[0]', /NUL/],
		[`select: [${long}]`, 'select[0]', /longer than 1000 characters/],
		['selector: "--target-path=/tmp"', 'selector', /must not start with "-"/],
		['selector: "nightly\\0"', 'selector', /NUL/],
		[`selector: ${long}`, 'selector', /longer than 1000/],
		['vars: {"--profiles-dir": x}', 'vars.--profiles-dir', /variable name.*must not start with "-"/],
		['vars: {"": 1}', 'vars.', /must not be empty/],
		['vars: {"a\\0": 1}', 'vars.a\\0', /NUL/],
		['vars: {a: "x\\0y"}', 'vars.a', /NUL/],
		['vars: {a: [ok, {b: "\\0"}]}', 'vars.a[1].b', /NUL/],
		[`vars: {a: "${'x'.repeat(33 * 1024)}"}`, 'vars', /larger than 32 KB/],
		['profile: {warehouse: "-main"}', 'profile.warehouse', /not first/]
	].map(([text, field, problem]) => [(text as string).length > 80 ? `${(text as string).slice(0, 40)}… (${(text as string).length} characters)` : text, field, text, problem] as [string, string, string, RegExp]))('%s → %s', (_label, field, text, problem) => {
		const err = refusal(text);
		expect(err.field).toBe(field);
		expect(err.status).toBe(400);
		expect(err.message).toMatch(problem);
	});

	it('accepts what dbt reads as selectors, dashes inside included', () => {
		expect(parseDescriptor('select: ["tag:a-b", "path:models/x-y", "orders customers"]\nselector: my-sel\nvars: {a-b: 1}')).toMatchObject({
			select: ['tag:a-b', 'path:models/x-y', 'orders customers'],
			selector: 'my-sel',
			vars: { 'a-b': 1 }
		});
	});
});

// Descriptors built to break what reads them: each is a 400 at deploy, never a stored
// version whose every run then fails (a circular anchor used to overflow the stack in each run).
describe('parseDescriptor: hostile YAML', () => {
	const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]', 'vars: {d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]}'].join('\n');
	const deepFlow = `vars: {a: ${'['.repeat(40)}1${']'.repeat(40)}}`;
	const deepBlock = `vars:\n${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i + 1)}k:`).join('\n')} 1`;
	const veryDeep = `vars: ${'['.repeat(5000)}${']'.repeat(5000)}`;
	it.each([
		['a circular anchor in vars', 'vars: &v\n  self: *v\n', /\(vars\.self\): refers to itself through a YAML alias/],
		['a circular anchor in select', 'select: &s [orders, *s]\n', /\(select\[1\]\): refers to itself/],
		['a circular anchor at the top', '&top\nvars: {a: *top}\n', /\(vars\.a\): refers to itself/],
		['a YAML bomb', bomb, /aliases expand to more than 50 nodes/],
		['many aliases of one scalar', `x: &x orders\nselect: [${Array(60).fill('*x').join(', ')}]`, /aliases expand to more than 50/],
		['nesting past 32 levels (flow)', deepFlow, /nests deeper than 32 levels/],
		['nesting past 32 levels (block)', deepBlock, /nests deeper than 32 levels/],
		['nesting that overflows the parser', veryDeep, /descriptor: nests deeper than 32 levels/],
		['over 64 KB', `vars: {a: "${'x'.repeat(65 * 1024)}"}`, /descriptor: is larger than 64 KB/],
		['a !!binary value', 'vars: !!binary aGVsbG8=', /\(vars\): must be plain YAML data/],
		['a non-string selector (number)', 'selector: 5', /\(selector\): must be the name of a selector/],
		['a non-string selector (mapping)', 'selector: {a: 1}', /\(selector\): must be the name/],
		['a non-string select entry (list)', 'select: [[orders]]', /\(select\[0\]\): must be a selector string/],
		['a non-string select entry (boolean)', 'select: [true]', /\(select\[0\]\): must be a selector string/],
		['an infinite number', 'vars: {a: .inf}', /\(vars\.a\): must be a finite number/]
	])('%s', (_name, text, message) => {
		const err = refusal(text);
		expect(err.status).toBe(400);
		expect(err.message).toMatch(message);
		expect(err.message).not.toMatch(/Maximum call stack|at \S+\.(js|ts):\d+/);
	});

	it('refuses a NUL character anywhere, a comment included (the text is stored)', () => {
		expect(() => parseDescriptor('profile:\n  warehouse: main\n# co\u0000mment\n')).toThrow(
			expect.objectContaining({ status: 400, message: 'descriptor: holds a NUL character at character 31, which cannot be stored' })
		);
	});

	it('counts no bracket inside quotes or comments toward the nesting', () => {
		const brackets = '['.repeat(40);
		expect(parseDescriptor(`# ${brackets}\nvars: {a: "${brackets}", b: '${brackets}', c: "\\"${brackets}"}`).vars).toEqual({ a: brackets, b: brackets, c: `"${brackets}` });
	});

	it('keeps an alias used a few times (shared, not circular)', () => {
		expect(parseDescriptor('x: &x orders\nselect: [*x]\nexclude: *x\nvars: {a: &l [1, 2], b: *l}')).toMatchObject({
			select: ['orders'],
			exclude: ['orders'],
			vars: { a: [1, 2], b: [1, 2] }
		});
	});
});

function refusal(text: string): IngestError {
	try {
		parseDescriptor(text);
	} catch (e) {
		expect(e).toBeInstanceOf(IngestError);
		return e as IngestError;
	}
	throw new Error(`accepted ${JSON.stringify(text.slice(0, 80))}`);
}

describe('parseDescriptor: engine', () => {
	it('reads the engine a project asks for, as pip specifiers', () => {
		expect(parseDescriptor('engine: {version: "1.12", adapter_version: "1.11"}').engine).toEqual({ kind: 'dbt-core', version: '==1.12.*', adapterVersion: '==1.11.*' });
		expect(parseDescriptor('engine:\n  version: "==1.11.16"\n').engine).toEqual({ kind: 'dbt-core', version: '==1.11.16', adapterVersion: null });
		expect(parseDescriptor('engine: {version: "~=1.12.0"}').engine.version).toBe('~=1.12.0');
		expect(parseDescriptor('engine: {version: "1.12.*"}').engine.version).toBe('==1.12.*');
		expect(parseDescriptor('engine: {kind: fusion}').engine).toEqual({ kind: 'fusion', version: null, adapterVersion: null });
	});

	it.each([
		['engine: {version: 1.10}', 'engine.version', 'quotes'],
		['engine: {version: ">=1.0"}', 'engine.version', 'exact version'],
		['engine: {version: "latest"}', 'engine.version', 'exact version'],
		['engine: {kind: spark}', 'engine.kind', '"dbt-core"'],
		['engine: "1.12"', 'engine', 'mapping'],
		['engine: {adapter_version: "1.x"}', 'engine.adapter_version', 'exact version']
	])('%s is refused, naming %s', (text, field, words) => {
		let err: Error | null = null;
		try {
			parseDescriptor(text);
		} catch (e) {
			err = e as Error;
		}
		expect(err?.message).toContain(`(${field})`);
		expect(err?.message).toContain(words);
	});

	it('keeps an unknown engine key as a warning', () => {
		expect(parseDescriptor('engine: {version: "1.12", python: "3.11"}').warnings).toEqual(['unknown setting `engine.python` was ignored']);
	});
});
