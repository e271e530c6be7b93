// Provisions dbt engines ahead of the first run, through the app's own provisioning (what a
// worker does when a run needs an engine this machine lacks): for CI, for a worker image, or to
// measure provisioning. Engines go to TRIBUTARY_ENGINE_DIR (or --dir).
//
//   npx tsx scripts/provision-engines.ts --engine 1.12:duckdb --engine 1.11:duckdb [--dir .cache/engines]
//
// Each --engine is `<dbt-core version or series>:<warehouse type>[:<adapter version>]`.
import { parseArgs } from 'node:util';
import { adapterPackage, pipSpecifier } from '../src/lib/server/dbt-engine-spec';
import { EngineCache, engineSettingsFromEnv } from '../src/lib/server/runner/engine/provision';

const { values } = parseArgs({
	options: {
		engine: { type: 'string', multiple: true },
		dir: { type: 'string' },
		help: { type: 'boolean', short: 'h' }
	}
});
const usage = 'usage: npx tsx scripts/provision-engines.ts --engine <core>:<warehouse type>[:<adapter version>] [--engine …] [--dir DIR]';
if (values.help || !values.engine?.length) {
	process.stdout.write(`${usage}\n`);
	process.exit(values.help ? 0 : 2);
}

const settings = engineSettingsFromEnv({ ...process.env, ...(values.dir ? { TRIBUTARY_ENGINE_DIR: values.dir } : {}) });
const cache = new EngineCache({ ...settings, keep: Math.max(settings.keep, values.engine.length) });
process.stdout.write(`engines in ${settings.dir}\n`);
let failed = 0;
for (const spec of values.engine) {
	const [core, type, adapter] = spec.split(':');
	try {
		if (!core || !type) throw new Error(`--engine ${spec}: write <core>:<warehouse type>, e.g. 1.12:duckdb`);
		adapterPackage(type);
		const started = Date.now();
		const e = await cache.ensure(
			{ core: pipSpecifier(core, 'core'), adapterType: type, adapterSpec: adapter ? pipSpecifier(adapter, 'adapter') : null },
			{ log: (l) => process.stdout.write(`  ${l}\n`), signal: new AbortController().signal, deadline: Date.now() + 30 * 60_000 }
		);
		process.stdout.write(`${e.key}: ${e.hit ? 'already installed' : 'provisioned'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
	} catch (err) {
		failed++;
		process.stderr.write(`${spec}: ${(err as Error).message}\n`);
	}
}
process.exit(failed ? 1 : 0);
