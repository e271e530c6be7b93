// What reaches dbt's command line, exactly, through the real deploy and run routes and the real
// worker, on both databases: the stand-in dbt echoes its argv (`fake-dbt argv: [...]`) and each
// row of the table asserts every invocation's argv word for word. And the other half of the
// rule: a descriptor whose values would read as dbt options (or hold a NUL, or are too long), or
// whose YAML is built to break what reads it, is refused at deploy with a 400 naming the key, and
// run arguments likewise when queued.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { hexToHash } from '../../src/lib/types/script-hash';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, FOLDER, PG_LOGS, replay, WS, type RunnerWorld } from '../support/runner-world';

const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');

const J = '<job>';
const common = ['--project-dir', `${J}/project`, '--profiles-dir', `${J}/profiles`];
const logs = (label: string) => ['--log-path', `${J}/logs/${label}`, '--log-format-file', 'json'];
const run = (...rest: string[]) => ['run', ...common, '--target-path', `${J}/target`, ...rest, ...logs('run')];
const parse = (...rest: string[]) => ['parse', ...common, '--target-path', `${J}/target-parse`, ...rest, ...logs('parse')];

// descriptor, run arguments, every invocation's argv in order
const ARGV: [string, string, Record<string, unknown>, string[][]][] = [
	['no descriptor', '', { command: 'run' }, [run()]],
	['descriptor selection', 'select: [orders, "stg_orders+"]\nexclude: customers\n', { command: 'run' }, [run('--select', 'orders', 'stg_orders+', '--exclude', 'customers')]],
	['a selector holding a space stays one word', 'select: ["orders customers"]\n', { command: 'run' }, [run('--select', 'orders customers')]],
	[
		"the run's selection replaces the descriptor's (and parses first)",
		'select: [orders]\n',
		{ command: 'run', select: ['stg_orders+'], exclude: ['customers'] },
		[parse(), run('--select', 'stg_orders+', '--exclude', 'customers')]
	],
	[
		'descriptor vars with placeholders, typed',
		'vars:\n  start: "{{ start }}"\n  full: "{{ full }}"\n  "a-b": [1, two]\n',
		{ command: 'run', start: '2024-01-01', full: false },
		[parse('--vars', '{"start":"2024-01-01","full":false,"a-b":[1,"two"]}'), run('--vars', '{"start":"2024-01-01","full":false,"a-b":[1,"two"]}')]
	],
	[
		"the run's vars over the descriptor's, a value that looks like an option staying inside --vars",
		'vars: {region: eu}\n',
		{ command: 'run', vars: { region: '--target-path=/elsewhere' } },
		[parse('--vars', '{"region":"--target-path=/elsewhere"}'), run('--vars', '{"region":"--target-path=/elsewhere"}')]
	]
];

// descriptor → the key the 400 names (issue 13: each of these deployed, and the first wrote
// outside the job directory when run)
const REFUSED_AT_DEPLOY: [string, string, RegExp][] = [
	['select: ["orders", "--target-path", "/elsewhere"]', 'select[1]', /must not start with "-"/],
	['exclude: ["--full-refresh"]', 'exclude[0]', /must not start with "-"/],
	['selector: "--threads=64"', 'selector', /must not start with "-"/],
	['select: ["orders\\0"]', 'select[0]', /NUL/],
	[`select: [${'o'.repeat(1001)}]`, 'select[0]', /longer than 1000/],
	['vars: {"--vars": x}', 'vars.--vars', /must not start with "-"/],
	['vars: {a: "\\0"}', 'vars.a', /NUL/],
	['profile: {warehouse: "-main"}', 'profile.warehouse', /not first/],
	['vars: &v\n  self: *v\n', 'vars.self', /refers to itself through a YAML alias/],
	['select: &s [orders, *s]\n', 'select[1]', /refers to itself/],
	['selector: 7', 'selector', /must be the name of a selector/],
	['select: [[orders]]', 'select[0]', /must be a selector string/]
];

const REFUSED_AT_RUN: [Record<string, unknown>, RegExp][] = [
	[{ command: 'run', select: ['orders', '--target-path', '/elsewhere'] }, /^select\[1\] must not start with "-"/],
	[{ command: 'run', exclude: '-x' }, /^exclude\[0\] must not start with "-"/],
	[{ command: 'run', vars: { '--x': 1 } }, /^vars\.--x \(a variable name\) must not start with "-"/],
	// Refused where the JSON body is read, naming the path, before the run's own checks.
	[{ command: 'run', vars: { a: 'b\u0000' } }, /^\$\.vars\.a: contains a NUL character/],
	[{ command: 'show', model: 'orders\u0000' }, /^\$\.model: contains a NUL character/]
];

function form(fields: Record<string, string | Uint8Array>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), `${k}.bin`);
	}
	return f;
}

describeFixtures('what reaches dbt argv', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database);
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		it.each(ARGV.map((row, i) => [i, ...row] as const))('%i: %s', async (i, _name, descriptor, body, expected) => {
			const name = `argv${i}`;
			await w.deploy(name, replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST, ...(descriptor ? { descriptor } : {}) });
			const job = await w.waitJob(await w.run(name, body));
			expect(job.status, job.logs).toBe('success');
			const root = path.join(w.jobsDir, job.id);
			const seen = (job.logs as string)
				.split('\n')
				.filter((l) => l.startsWith('fake-dbt argv: '))
				.map((l) => (JSON.parse(l.slice('fake-dbt argv: '.length)) as string[]).map((a) => (a.startsWith(root) ? J + a.slice(root.length) : a)));
			expect(seen).toEqual(expected);
		});

		it.each(REFUSED_AT_DEPLOY.map(([d, f, m]) => [d.length > 80 ? `${d.slice(0, 40)}… (${d.length} characters)` : d, f, d, m] as const))(
			'deploy refuses %s: 400 naming %s, nothing stored',
			async (_label, field, descriptor, problem) => {
				const scriptPath = `f/${FOLDER}/refused`;
				const r = await w.wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, {
					form: form({
						path: scriptPath,
						descriptor,
						manifest: new Uint8Array(readFileSync(RUN_MANIFEST)),
						project: tarGz(new Map([['dbt_project.yml', 'name: jaffle_shop\nprofile: jaffle_shop\n'], ['fake-dbt.json', JSON.stringify(replay(OK_RUN, {}, RUN_MANIFEST))]]))
					})
				});
				expect(r.status, JSON.stringify(r.body)).toBe(400);
				expect(r.body.error.startsWith(`descriptor (${field}): `), r.body.error).toBe(true);
				expect(r.body.error).toMatch(problem);
				expect(r.body.error).not.toMatch(/Maximum call stack|\.(js|ts):\d+/);
				// Nothing stored: the path has no version to run.
				expect((await w.wendy.post(`/api/w/${WS}/jobs/run/p/${scriptPath}`, { command: 'run' })).status).toBe(404);
			}
		);

		it.each(REFUSED_AT_RUN)('a run with %j is a 400 before any job exists', async (body, message) => {
			await w.deploy('runargs', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const before = (await w.wendy.get(`/api/w/${WS}/jobs/list?script_path=f/${FOLDER}/runargs&kind=run`)).body.length;
			const r = await w.wendy.post(`/api/w/${WS}/jobs/run/p/f/${FOLDER}/runargs`, body);
			expect(r.status, JSON.stringify(r.body)).toBe(400);
			expect(r.body.error).toMatch(message);
			expect((await w.wendy.get(`/api/w/${WS}/jobs/list?script_path=f/${FOLDER}/runargs&kind=run`)).body.length).toBe(before);
		});

		it('a version stored before these rules with a circular descriptor fails its runs saying why, before dbt starts', async () => {
			const hash = hexToHash(await w.deploy('stored', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST }))!;
			// What the deploy of an older build stored (it accepted the circular anchor).
			await database.rows(sql`update script set content = ${'vars: &v\n  self: *v\n'} where workspace = ${WS} and hash = ${hash}`);
			const job = await w.waitJob(await w.run('stored', { command: 'run' }));
			expect(job.status).toBe('failure');
			expect(job.result.error).toBe('the descriptor of this version is not valid: descriptor (vars.self): refers to itself through a YAML alias (a circular anchor): write the value out');
			expect(job.logs).not.toContain('fake-dbt argv');
			expect(job.logs).not.toMatch(/Maximum call stack|internal error/);
			// A share-link viewer sees that it failed, not the message.
			const link = (await w.wendy.get(`/api/w/${WS}/jobs/share/${job.id}?kind=public`)).body.token;
			const viewed = await new ApiClient().get(`/api/w/${WS}/jobs/get/${job.id}?view_token=${link}`);
			expect(viewed.body.result.error).toBe('the run failed');
		});
	});
});
