// The API fuzzed from its own OpenAPI document: schemathesis (pinned, from the Python package
// index, in a cached virtualenv) runs every operation of GET /api/openapi.json against the BUILT
// app, once with a read-only token and once with an admin token, over the demo workspace. What
// must hold for every generated request: no 5xx, a status code the document declares, a content
// type and a body that match what it declares for that status, and an answer within 2 s.
// Identifiers the API would otherwise only ever see at random (job ids, a share link, relations
// and their columns, project paths, version hashes) come from the seeded demo half of the time,
// so the checks reach past the 400s and 404s. Share links are a security scheme of the document:
// schemathesis sends made-up ones (a real one would look to it like accepted bad credentials). On PGlite, and on Postgres when TEST_DATABASE_URL
// is set (in CI it must be).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/lib/server/openapi';
import { OPENLINEAGE_REFERENCE } from '../support/openlineage-schemas';
import { ensureSchemathesis, failureReport, runSchemathesis } from '../support/schemathesis';
import { Api } from './support';
import { apiLogin, startApp, type RunningApp } from './server';

const PG_URL = process.env.TEST_DATABASE_URL;
if (!PG_URL && process.env.CI) throw new Error('TEST_DATABASE_URL must be set in CI: the API is fuzzed on PGlite and Postgres');
if (!PG_URL) process.stderr.write('[notice] api-fuzz: TEST_DATABASE_URL is not set, so the Postgres half is skipped\n');

/** What the fuzz asserts. Left out: positive_data_acceptance (a well-formed relation with no such
 * column is a 400 the schema cannot express), negative_data_rejection (free-text filters accept
 * any string by design), unsupported_method (Node's HTTP parser answers TRACE before the app),
 * and the stateful checks (the stateful phase is off). */
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_headers_conformance', 'response_schema_conformance', 'ignored_auth'];
/** Cases per operation and phase: enough to reach every declared parameter, a few minutes in all on two cores. */
const MAX_EXAMPLES = 10;
const RUN_TIMEOUT_MS = 240_000;

const READ_SCOPES = ['assets:read', 'jobs:read', 'scripts:read', 'tokens:read', 'users:read', 'groups:read', 'folders:read', 'warehouses:read', 'openlineage:read', 'instance:read'];

interface Backend {
	name: string;
	start(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

const backends: Backend[] = [{ name: 'pglite', start: async () => ({ env: {}, drop: async () => {} }) }];
if (PG_URL) {
	backends.push({
		name: 'postgres',
		start: async () => {
			const name = `tributary_fuzz_${randomBytes(6).toString('hex')}`;
			const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
			await admin.unsafe(`CREATE DATABASE ${name}`);
			const u = new URL(PG_URL);
			u.pathname = `/${name}`;
			return {
				env: { DATABASE_URL: u.toString(), TRIBUTARY_DEMO: '1' },
				drop: async () => {
					await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
					await admin.end({ timeout: 1 });
				}
			};
		}
	});
}

const toml = (v: unknown) => JSON.stringify(v);

/** The schemathesis.toml of a run: the demo workspace, the token, and the demo's identifiers as dictionaries. */
function configFor(dicts: Record<string, (string | number)[]>, bindings: Record<string, string>): string {
	const lines = ['[parameters]', 'ws = "demo"'];
	// Half the time a real identifier, half the time a generated one.
	for (const [param, dict] of Object.entries(bindings)) lines.push(`${toml(param)} = { dictionary = ${toml(dict)}, probability = 0.5 }`);
	lines.push('', '[auth.openapi.bearer]', 'bearer = "${FUZZ_TOKEN}"', '');
	for (const [name, values] of Object.entries(dicts)) lines.push(`[dictionaries.${name}]`, `values = ${toml(values)}`, '');
	return lines.join('\n');
}

for (const backend of backends) {
	describe(`the API fuzzed from its OpenAPI document (schemathesis, built app, ${backend.name})`, () => {
		let app: RunningApp;
		let drop: () => Promise<void> = async () => {};
		let bin: string;
		let dir: string;
		const tokens: Record<'admin' | 'reader', string> = { admin: '', reader: '' };
		let servedOperations = 0;

		beforeAll(async () => {
			bin = ensureSchemathesis();
			const db = await backend.start();
			drop = db.drop;
			// No worker: the runs the fuzz queues stay queued instead of spending the machine's two cores on dbt.
			app = await startApp({ ...db.env, TRIBUTARY_WORKER: '0', TRIBUTARY_OPENLINEAGE_SCHEMAS: OPENLINEAGE_REFERENCE });
			const api = new Api(app.url, await apiLogin(app.url));
			const doc = (await (await fetch(`${app.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
			servedOperations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
			expect(servedOperations).toBe(new Set(operations.map((o) => `${o.method} ${o.path}`)).size);
			tokens.admin = (await api.ok('POST', '/api/w/demo/tokens', { label: 'fuzz-admin' })).token;
			tokens.reader = (await api.ok('POST', '/api/w/demo/tokens', { label: 'fuzz-reader', scopes: READ_SCOPES })).token;

			const jobs = (await api.ok('GET', '/api/w/demo/jobs/list?limit=50')) as { id: string; script_hash: string | null; kind: string }[];
			expect(jobs.length).toBeGreaterThan(2);
			const run = jobs.find((j) => j.kind === 'recorded')!;
			const link = await api.ok('POST', `/api/w/demo/jobs/share_links/${run.id}`, { kind: 'public' });
			const graph = await api.ok('GET', '/api/w/demo/assets/graph?folder=demo');
			const relations = (graph.assets as { kind: string; path: string; dbt?: { column_schema?: { name: string }[] } }[]).filter((a) => a.kind === 'dbt' && a.dbt?.column_schema?.length);
			expect(relations.length).toBeGreaterThan(0);
			const hashes = [...new Set(jobs.map((j) => j.script_hash).filter((h): h is string => !!h))];
			const dicts = {
				job_ids: jobs.map((j) => j.id),
				link_ids: [link.id],
				relations: relations.slice(0, 20).flatMap((r) => [r.path, `dbt://${r.path}`]),
				columns: [...new Set(relations.slice(0, 20).flatMap((r) => r.dbt!.column_schema!.map((c) => c.name)))].slice(0, 50),
				projects: ['f/demo/shop', 'f/demo/roastery'],
				hashes,
				refs: ['latest', ...hashes, ...jobs.map((j) => j.id)]
			};
			dir = mkdtempSync(path.join(tmpdir(), 'tributary-fuzz-'));
			writeFileSync(
				path.join(dir, 'schemathesis.toml'),
				configFor(dicts, {
					'path.id': 'job_ids',
					'path.link': 'link_ids',
					'path.hash': 'hashes',
					'query.asset_path': 'relations',
					'query.column': 'columns',
					'query.path': 'projects',
					'query.dbt_script_hash': 'hashes',
					'query.ref': 'hashes',
					'query.from': 'refs',
					'query.to': 'refs'
				})
			);
		}, 300_000);

		afterAll(async () => {
			await app?.stop();
			await drop();
			if (dir) rmSync(dir, { recursive: true, force: true });
		});

		// The reader first: the admin's writes (replaced grants, new members) must not change what the reader was fuzzed against.
		for (const who of ['reader', 'admin'] as const) {
			it(`every operation with the ${who} token: no 5xx, declared statuses and schemas, each answer within 2 s`, async () => {
				const r = await runSchemathesis(
					bin,
					[
						'--config-file', path.join(dir, 'schemathesis.toml'),
						'run', `${app.url}/api/openapi.json`,
						'--checks', CHECKS.join(','),
						'--max-response-time', '2',
						'--max-examples', String(MAX_EXAMPLES),
						'--phases', 'examples,coverage,fuzzing',
						'--workers', '1',
						'--seed', '29',
						'--no-color'
					],
					{ FUZZ_TOKEN: tokens[who] },
					dir,
					RUN_TIMEOUT_MS
				);
				expect(r.code, `schemathesis with the ${who} token:\n${failureReport(r.output)}`).toBe(0);
				// Every documented operation was tested (but GET /api/openapi.json, which schemathesis
				// reads rather than tests), and none errored (an unresolvable schema is an error).
				const selected = /Selected: (\d+)\/(\d+)/.exec(r.output);
				const tested = /Tested: (\d+)/.exec(r.output);
				const expected = String(servedOperations - 1);
				expect([selected?.[1], selected?.[2], tested?.[1]], r.output.slice(-3000)).toEqual([expected, expected, expected]);
				expect(r.output).not.toMatch(/Errored: [1-9]/);
			}, RUN_TIMEOUT_MS + 30_000);
		}
	});
}
