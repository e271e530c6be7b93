// Every model or statement of the public suite whose outcome is not `analyzed`, grouped by the
// engine's reason with the names taken out, each group with its runs, cases, dialects and one
// example: the source of the "Still partial (or failed)" list in docs/column-lineage.md.
//   npx tsx tests/public-lineage/partials.ts [--json out.json]
// Runs as tests/support/public-lineage-ours.ts does, keeping every untraced reason, not the first.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { inferModel } from '../../src/lib/lineage/infer/infer';
import { resolverOf } from '../../src/lib/lineage/infer/manifest';
import { parseStatement } from '../../src/lib/lineage/sql-lineage/parse';
import { LineageSession } from '../../src/lib/lineage/sql-lineage/session';
import { blankComments, splitStatements, statementHead } from '../../src/lib/lineage/sql-lineage/text';
import type { SqlDialect } from '../../src/lib/lineage/sql-lineage/types';
import { loadProject, scriptResolver } from '../support/public-lineage-ours';
import { loadSuite, modelNode, projectOf, scriptOf, slugOf, SUITE_DIR, suiteRuns, type CaseRun } from '../support/public-lineage';

interface Outcome {
	run: string;
	id: string;
	source: string;
	dialect: string;
	outcome: string;
	reason: string;
	sql: string;
}

function outcomesOf(run: CaseRun): Omit<Outcome, 'run' | 'id' | 'source' | 'dialect'>[] {
	const out: Omit<Outcome, 'run' | 'id' | 'source' | 'dialect'>[] = [];
	if (run.c.form === 'model') {
		const plan = loadProject(projectOf(run.source, run.c)).plan;
		const slug = slugOf(run.c.id);
		const inferred = new Map<string, string[]>();
		const resolver = resolverOf(plan, inferred);
		for (const node of [...run.c.upstream.map((u) => modelNode(slug, u.name.toLowerCase())), modelNode(slug, null)]) {
			const m = plan.models.find((x) => x.node === node)!;
			const r = inferModel({ sql: m.sql!, dialect: run.dialect, resolve: resolver.forModel(m), outputColumns: m.outputColumns });
			if (r.outcome === 'failed') out.push({ outcome: 'failed', reason: r.message, sql: m.sql! });
			else {
				if (r.outcome === 'partial') for (const reason of new Set(r.untraced.map((u) => u.reason))) out.push({ outcome: 'partial', reason, sql: m.sql! });
				if (!m.outputColumns) inferred.set(node, r.columns.map((c) => c.name));
			}
		}
		return out;
	}
	const session = new LineageSession({ resolve: scriptResolver(run.c) });
	for (const st of splitStatements(blankComments(readFileSync(path.join(SUITE_DIR, 'scripts', scriptOf(run.source, run.c)), 'utf8')))) {
		const r = session.run(parseStatement(st.text, run.dialect as SqlDialect, { head: statementHead(st.text) }));
		if (r.outcome === 'analyzed') continue;
		const reasons = r.outcome === 'partial' && r.untraced.length ? new Set(r.untraced.map((u) => u.reason)) : [r.reason ?? ''];
		for (const reason of reasons) out.push({ outcome: r.outcome, reason, sql: st.text });
	}
	return out;
}

/** A reason with the names in it taken out, so one construct's outcomes group together. */
const shape = (reason: string) =>
	reason
		.replace(/^Parse error at line \d+, column \d+: /, '')
		.replace(/\b(INSERT INTO|columns of|over|which of|has|reads) [^\s:,;()]+(, [^\s:,;()]+)*/g, '$1 …')
		.replace(/\(\w+\)$/, '(…)');

const { values } = parseArgs({ options: { json: { type: 'string' } } });
const runs = suiteRuns(loadSuite());
const all: Outcome[] = runs.flatMap((run, k) => outcomesOf(run).map((o) => ({ ...o, run: `r${k}`, id: run.c.id, source: run.source, dialect: run.dialect })));
if (values.json) writeFileSync(values.json, JSON.stringify(all, null, 1));
const groups = new Map<string, Outcome[]>();
for (const o of all) groups.set(`${o.outcome}: ${shape(o.reason)}`, [...(groups.get(`${o.outcome}: ${shape(o.reason)}`) ?? []), o]);
const notAnalysed = new Set(all.filter((o) => o.outcome !== 'skipped').map((o) => o.run)).size;
process.stdout.write(`${runs.length} runs; ${notAnalysed} with a partial or failed model or statement\n`);
for (const [key, os] of [...groups].sort((a, b) => new Set(b[1].map((o) => o.run)).size - new Set(a[1].map((o) => o.run)).size)) {
	const ex = os[0];
	process.stdout.write(
		`\n${key}\n  runs ${new Set(os.map((o) => o.run)).size}, cases ${new Set(os.map((o) => o.id)).size}; ${[...new Set(os.map((o) => o.dialect))].join(', ')}; ${[...new Set(os.map((o) => o.source))].join(', ')}\n  e.g. ${ex.id} [${ex.dialect}]: ${ex.reason}\n  ${ex.sql.replace(/\s+/g, ' ').slice(0, 300)}\n`
	);
}
