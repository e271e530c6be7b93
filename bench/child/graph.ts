// Where an assets/graph answer's time goes, in one process against the app's database (after its
// server stopped, on PGlite): the SQL reads (every statement through Database.rows), the rest of
// unpinnedAssetGraph (assembly, redaction), and the JSON text the route sends (jsonSafe's
// stringify with a bigint replacer, and a plain JSON.stringify for comparison); then the same
// read after ANALYZE. Prints JSON.
import { sql } from 'drizzle-orm';
import { parseArgs } from 'node:util';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { unpinnedAssetGraph } from '../../src/lib/server/api/graph/reads';
import { grantOf } from '../../src/lib/server/access';
import { benchAdmin } from '../lib';

const { values } = parseArgs({
	options: { url: { type: 'string' }, 'data-dir': { type: 'string' }, ws: { type: 'string' }, folder: { type: 'string' }, runs: { type: 'string' } }
});
const runs = Number(values.runs ?? 5);
const raw = await openDatabase(values.url ? { url: values.url, migrate: false } : { dataDir: values['data-dir']!, migrate: false });
let sqlMs = 0;
let statements = 0;
const database: Database = {
	...raw,
	rows: async (q, tx) => {
		const t0 = performance.now();
		try {
			return await raw.rows(q, tx);
		} finally {
			sqlMs += performance.now() - t0;
			statements++;
		}
	}
};
const grant = grantOf(benchAdmin(values.ws!));
const out = { total: [] as number[], sql: [] as number[], statements: 0, replacer: [] as number[], plain: [] as number[], bytes: 0, analyzed: { total: [] as number[], sql: [] as number[] } };
for (let i = -2; i < runs; i++) {
	sqlMs = 0;
	statements = 0;
	const t0 = performance.now();
	const g = await unpinnedAssetGraph(grant, database, { folder: values.folder!, assetKinds: null, scriptHash: null });
	const t1 = performance.now();
	const text = JSON.stringify(g, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
	const t2 = performance.now();
	JSON.stringify(g);
	const t3 = performance.now();
	if (i < 0) continue;
	out.total.push(t1 - t0);
	out.sql.push(sqlMs);
	out.statements = statements;
	out.replacer.push(t2 - t1);
	out.plain.push(t3 - t2);
	out.bytes = Buffer.byteLength(text);
}
// The same read once the planner has statistics (PGlite never gathers them by itself).
await raw.rows(sql`analyze`);
for (let i = -1; i < runs; i++) {
	sqlMs = 0;
	const t0 = performance.now();
	await unpinnedAssetGraph(grant, database, { folder: values.folder!, assetKinds: null, scriptHash: null });
	if (i < 0) continue;
	out.analyzed.total.push(performance.now() - t0);
	out.analyzed.sql.push(sqlMs);
}
await raw.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
