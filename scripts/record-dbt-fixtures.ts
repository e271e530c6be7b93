// Records what the stand-in dbt replays, from the real engine: `dbt build` of the demo project's
// source on a fresh DuckDB file, with the engine the tests pin (provisioned like a worker does),
// written to tests/fixtures/real-dbt/<dbt-core version>/demo-build/:
//   dbt.log.jsonl      the JSON event log (--log-format-file json), what live progress follows
//   run_results.json   what settlement reads
//   manifest.json      the manifest the build ran with
//   engine.json        the engine key and versions
// tests/runner/real-dbt.test.ts compares a fresh real build's events with these, so a new engine
// that changes them fails until this is run again:
//
//   npx tsx scripts/record-dbt-fixtures.ts [--core 1.12] [--out tests/fixtures/real-dbt]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pipSpecifier } from '../src/lib/server/dbt-engine-spec';
import { generateProject } from '../src/lib/server/demo/generator';
import { EngineCache, engineSettingsFromEnv } from '../src/lib/server/runner/engine/provision';

const { values } = parseArgs({ options: { core: { type: 'string' }, out: { type: 'string' } } });
const core = pipSpecifier(values.core ?? '1.12', 'core');
const outRoot = path.resolve(values.out ?? 'tests/fixtures/real-dbt');

const cache = new EngineCache(engineSettingsFromEnv({ ...process.env, TRIBUTARY_ENGINE_DIR: process.env.TRIBUTARY_ENGINE_DIR ?? path.resolve('.cache/engines') }));
const engine = await cache.ensure(
	{ core, adapterType: 'duckdb', adapterSpec: null },
	{ log: (l) => process.stderr.write(`${l}\n`), signal: new AbortController().signal, deadline: Date.now() + 3_600_000 }
);
const project = await generateProject();
const dir = mkdtempSync(path.join(tmpdir(), 'tributary-record-'));
try {
	for (const [rel, text] of project.projectFiles) {
		mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
		writeFileSync(path.join(dir, rel), text);
	}
	// The profile the project ships names a DuckDB file beside it; a fresh one each time.
	writeFileSync(
		path.join(dir, 'profiles.yml'),
		`coffee_shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: ${path.join(dir, `${project.meta.database}.duckdb`)}\n      schema: ${project.meta.schema}\n      threads: 4\n`
	);
	const logs = path.join(dir, 'logs');
	const r = spawnSync(engine.dbtBin, ['build', '--project-dir', dir, '--profiles-dir', dir, '--log-path', logs, '--log-format-file', 'json', '--target-path', path.join(dir, 'target')], {
		env: { PATH: process.env.PATH ?? '', HOME: dir, DBT_SEND_ANONYMOUS_USAGE_STATS: 'false', DBT_VERSION_CHECK: 'false', LANG: 'C.UTF-8', TZ: 'UTC' },
		encoding: 'utf8',
		maxBuffer: 64 << 20
	});
	// The demo's build fails one test on purpose: exit code 1 is the expected outcome.
	if (r.status !== 1) throw new Error(`dbt build exited ${r.status} (1 expected: one test fails by design):\n${(r.stdout + r.stderr).slice(-3000)}`);
	const out = path.join(outRoot, engine.coreVersion, 'demo-build');
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	copyFileSync(path.join(logs, 'dbt.log'), path.join(out, 'dbt.log.jsonl'));
	copyFileSync(path.join(dir, 'target', 'run_results.json'), path.join(out, 'run_results.json'));
	copyFileSync(path.join(dir, 'target', 'manifest.json'), path.join(out, 'manifest.json'));
	writeFileSync(path.join(out, 'engine.json'), `${JSON.stringify({ key: engine.key, dbt_core: engine.coreVersion, adapter: engine.adapterPackage, adapter_version: engine.adapterVersion, recorded_at: new Date().toISOString() }, null, 1)}\n`);
	process.stdout.write(`recorded ${readdirSync(out).join(', ')} into ${path.relative(process.cwd(), out)}\n`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
