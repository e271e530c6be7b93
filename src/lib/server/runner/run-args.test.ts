import { describe, expect, it } from 'vitest';
import { ApiError } from '../http';
import { parseDescriptor } from '../dbt-files/descriptor';
import { flagUnsupported, parseEngineVersion } from './dbt-process';
import { showDocument } from './execute';
import { makeMasker, profileNameOf, renderProfile, childEnv } from './profiles';
import { effectiveSelection, hasPlaceholders, ownModelSet, parseRunArgs, resolveVars, selectionArgv, showLimit, showSelectsOneNode } from './run-args';

const refused = (body: Record<string, unknown>) => {
	try {
		parseRunArgs(body);
	} catch (e) {
		expect(e).toBeInstanceOf(ApiError);
		expect((e as ApiError).status).toBe(400);
		return (e as ApiError).message;
	}
	throw new Error(`accepted ${JSON.stringify(body)}`);
};

describe('run arguments', () => {
	it('allows exactly the nine commands, defaulting to build', () => {
		for (const c of ['build', 'run', 'test', 'parse', 'compile', 'seed', 'snapshot']) expect(parseRunArgs({ command: c }).command).toBe(c);
		expect(parseRunArgs({}).command).toBe('build');
		for (const c of ['clean', 'deps', 'run-operation', 'docs', 'BUILD', 'build --full-refresh', 1]) expect(refused({ command: c })).toMatch(/command must be one of/);
	});

	it('takes one selector string or a list, and refuses one that would read as an option', () => {
		expect(parseRunArgs({ select: 'tag:daily' }).select).toEqual(['tag:daily']);
		expect(parseRunArgs({ select: ['a', ' b ', ''] }).select).toEqual(['a', 'b']);
		expect(refused({ select: ['--target-path=/etc'] })).toMatch(/must not start with "-"/);
		expect(refused({ exclude: { a: 1 } })).toMatch(/exclude must be/);
		expect(refused({ vars: [1] })).toMatch(/vars must be an object/);
	});

	it('show: one model, no set operators, limit clamped to 1..1000 (default 100)', () => {
		expect(parseRunArgs({ command: 'show', model: 'orders' })).toMatchObject({ model: 'orders', limit: 100 });
		expect(parseRunArgs({ command: 'show', model: 'orders', limit: 5000 }).limit).toBe(1000);
		expect(parseRunArgs({ command: 'show', model: 'orders', limit: 0 }).limit).toBe(100);
		expect(parseRunArgs({ command: 'show', model: 'orders', limit: -3 }).limit).toBe(100);
		expect(parseRunArgs({ command: 'show', model: 'orders', limit: 7 }).limit).toBe(7);
		for (const m of ['orders customers', '+orders', 'orders+', 'tag:*', '@orders', '-x']) expect(refused({ command: 'show', model: m })).toMatch(/ONE model/);
		expect(refused({ command: 'show' })).toMatch(/needs `model`/);
		expect(refused({ command: 'build', model: 'x' })).toMatch(/show only/);
		expect(showLimit(undefined)).toBe(100);
		expect(showSelectsOneNode('path:models/orders.sql')).toBe(true);
	});

	it('retry: names the run it resumes, and takes no selection or vars of its own', () => {
		const id = '0b6f3f0e-8d53-4b55-9a54-1d3c1d0f2a10';
		expect(parseRunArgs({ command: 'retry', retry_job: id.toUpperCase() }).retry_job).toBe(id);
		expect(refused({ command: 'retry' })).toMatch(/retry_job/);
		expect(refused({ command: 'retry', retry_job: 'last' })).toMatch(/retry_job/);
		expect(refused({ command: 'retry', retry_job: id, select: ['a'] })).toMatch(/select cannot be given/);
	});

	it.each([
		[{ select: ['orders', '--target-path', '/elsewhere'] }, /^select\[1\] must not start with "-"/],
		[{ exclude: ['a\u0000b'] }, /^exclude\[0\] must not contain a NUL/],
		[{ select: ['x'.repeat(1001)] }, /^select\[0\] is longer than 1000/],
		[{ vars: { '--profiles-dir': '/x' } }, /^vars\.--profiles-dir \(a variable name\) must not start with "-"/],
		[{ vars: { '': 1 } }, /^vars\. \(a variable name\) must not be empty/],
		[{ vars: { a: ['ok', 'b\u0000'] } }, /^vars\.a\[1\] must not contain a NUL/],
		[{ start: 'x\u0000' }, /^start must not contain a NUL/],
		[{ command: 'show', model: 'orders\u0000' }, /^model must not contain a NUL/]
	])('refuses what would not reach dbt as given: %j', (body, message) => {
		expect(refused(body)).toMatch(message);
	});

	it('keeps placeholder values, refuses keys that are not identifiers', () => {
		expect(parseRunArgs({ start: '2024-01-01', full: false })).toMatchObject({ start: '2024-01-01', full: false });
		expect(refused({ 'not a name': 1 })).toMatch(/unknown argument/);
	});
});

describe('typed vars with placeholders', () => {
	const d = parseDescriptor(`vars:\n  start: "{{ start }}"\n  label: "from {{ start }} to {{ end }}"\n  full: "{{ full }}"\n  n: 3\n  nested: { list: ["{{ start }}", 2] }\n`);

	it('a sole placeholder takes the argument\'s type; embedded ones are text', () => {
		const r = resolveVars(d.vars, { command: 'build', start: '2024-01-01', end: 5, full: false });
		expect(r.missing).toEqual([]);
		expect(r.vars).toEqual({ start: '2024-01-01', label: 'from 2024-01-01 to 5', full: false, n: 3, nested: { list: ['2024-01-01', 2] } });
	});

	it('names every placeholder without a value', () => {
		expect(resolveVars(d.vars, { command: 'build', start: 'x' }).missing).toEqual(['end', 'full']);
	});

	it('the run\'s own vars override the descriptor\'s', () => {
		expect(resolveVars({ a: 1, b: 2 }, { command: 'build', vars: { b: 3 } }).vars).toEqual({ a: 1, b: 3 });
	});

	it('a run has its own model set when it overrides vars or selection, or the descriptor has placeholders', () => {
		expect(hasPlaceholders(d.vars)).toBe(true);
		expect(ownModelSet(parseDescriptor(''), { command: 'build' })).toBe(false);
		expect(ownModelSet(parseDescriptor(''), { command: 'build', select: [] })).toBe(true);
		expect(ownModelSet(parseDescriptor(''), { command: 'build', vars: {} })).toBe(true);
		expect(ownModelSet(d, { command: 'build' })).toBe(true);
	});

	it('a run\'s selection replaces the descriptor\'s, a named selector included', () => {
		const sd = parseDescriptor('select: [tag:nightly]\nselector: nightly\n');
		expect(selectionArgv(effectiveSelection(sd, { command: 'build' }))).toEqual(['--selector', 'nightly']);
		expect(selectionArgv(effectiveSelection(sd, { command: 'build', select: ['orders+'] }))).toEqual(['--select', 'orders+']);
		expect(selectionArgv(effectiveSelection(parseDescriptor('select: [a]\nexclude: [b]'), { command: 'build' }))).toEqual(['--select', 'a', '--exclude', 'b']);
	});
});

describe('profiles and the child environment', () => {
	const wh = {
		name: 'main',
		defaultDatabase: 'analytics',
		settings: { type: 'postgres', host: 'db.internal', port: 5432, user: 'dbt', dbname: 'analytics', schema: 'public', threads: 4, env: { DBT_ENV_CUSTOM_ENV_team: 'data', PATH: '/evil', TRIBUTARY_SECRET: 'x' } },
		secrets: { password: 's3cr3t-pa55', private_key: '-----BEGIN KEY-----abc', SNOWFLAKE_TOKEN: 'tok-123456', PATH: '/x' }
	};

	it('renders the project\'s profile with secrets only as env_var references', () => {
		const r = renderProfile(wh, 'jaffle_shop');
		expect(r.yaml).toContain('jaffle_shop:');
		expect(r.yaml).toContain('target: tributary');
		expect(r.yaml).toContain("password: \"{{ env_var('DBT_ENV_SECRET_PASSWORD') }}\"");
		expect(r.yaml).toContain("private_key: \"{{ env_var('DBT_ENV_SECRET_PRIVATE_KEY') }}\"");
		expect(r.yaml).not.toContain('s3cr3t-pa55');
		expect(r.yaml).not.toContain('BEGIN KEY');
		expect(r.yaml).not.toMatch(/\benv:/);
		expect(r.yaml).toContain('port: 5432');
		expect(r.env).toMatchObject({ DBT_ENV_SECRET_PASSWORD: 's3cr3t-pa55', DBT_ENV_CUSTOM_ENV_team: 'data', SNOWFLAKE_TOKEN: 'tok-123456' });
		expect(r.yaml).not.toContain('SNOWFLAKE_TOKEN');
		expect(r.secrets.sort()).toEqual(['-----BEGIN KEY-----abc', '/x', 's3cr3t-pa55', 'tok-123456']);
		expect(r.refusedEnv.sort()).toEqual(['PATH', 'PATH', 'TRIBUTARY_SECRET']);
	});

	it('takes the profile name from dbt_project.yml', () => {
		expect(profileNameOf({ name: 'x', profile: 'jaffle_shop' })).toBe('jaffle_shop');
		expect(profileNameOf({ name: 'x' })).toBe('default');
	});

	it('builds the child environment from nothing', () => {
		const env = childEnv({ home: '/jobs/1', warehouseEnv: { A: '1', HOME: '/root' }, path: '/usr/bin' });
		expect(env.HOME).toBe('/jobs/1');
		expect(env.PATH).toBe('/usr/bin');
		expect(env.A).toBe('1');
		expect(Object.keys(env).some((k) => k === 'DATABASE_URL' || k.startsWith('TRIBUTARY'))).toBe(false);
	});

	it('masks every secret, the longest first', () => {
		const mask = makeMasker(['abc123', 'abc123xyz', 'ab']);
		expect(mask('pw=abc123xyz and abc123 but ab stays')).toBe('pw=*** and *** but ab stays');
	});
});

describe('engine detection', () => {
	it('reads dbt-core 1.x, Fusion and unknown outputs', () => {
		expect(parseEngineVersion('Core:\n  - installed: 1.8.2\n  - latest: 1.9.0')).toMatchObject({ name: 'dbt-core', version: '1.8.2', writesIndex: false, emitsNodeEvents: true });
		expect(parseEngineVersion('dbt-fusion 2.0.0-beta.2')).toMatchObject({ name: 'dbt-fusion', version: '2.0.0-beta.2', writesIndex: true, emitsNodeEvents: false });
		expect(parseEngineVersion('something else')).toMatchObject({ name: 'dbt', writesIndex: null });
		expect(flagUnsupported("Error: No such option: --write-index")).toBe(true);
		expect(flagUnsupported('Database Error: relation does not exist')).toBe(false);
	});
});

describe('show output', () => {
	it('finds the rows between a banner and trailing warnings', () => {
		const out = 'Running with dbt=1.8.2\n{ "a": 1 }\n{\n  "node": "orders",\n  "show": [{"id": 1, "note": "a } b"}]\n}\nWarning: deprecated\n';
		expect(showDocument(out)).toEqual({ node: 'orders', rows: [{ id: 1, note: 'a } b' }] });
		expect(showDocument('no json here')).toBeNull();
	});
});
