// Our engine on the public suite's inputs, as the app runs it: a model-form case through the dbt
// path (inferencePlan over the case's project, the models inferred upstream first, as the lineage
// job does), a script-form case through the engine's statement session (as producer scripts
// are: split, each head read, each query parsed, the statements run in order), in the run's
// dialect. Answers come back in the truth's terms (tables as the case names them).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inferModel } from '../../src/lib/lineage/infer/infer';
import { inferencePlan, resolverOf, type InferencePlan } from '../../src/lib/lineage/infer/manifest';
import { parseStatement } from '../../src/lib/lineage/sql-lineage/parse';
import { LineageSession } from '../../src/lib/lineage/sql-lineage/session';
import { blankComments, splitStatements, statementHead } from '../../src/lib/lineage/sql-lineage/text';
import type { NameResolver, SqlDialect } from '../../src/lib/lineage/sql-lineage/types';
import { modelNode, projectOf, scriptOf, slugOf, SUITE_DIR, type CaseRun, type SuiteCase, type ToolEdge } from './public-lineage';

export interface OurAnswer {
	edges: ToolEdge[];
	scans: [string, string][];
	/** Per model or statement: its outcome and, when not analysed, why. */
	outcomes: { what: string; outcome: string; reason: string | null }[];
}

interface LoadedProject {
	plan: InferencePlan;
	/** unique_id → the table's name as the case writes it (null: the case's own model). */
	names: Map<string, string | null>;
}

const projects = new Map<string, LoadedProject>();

/** A suite project's inference plan and its table names, read once. */
export function loadProject(rel: string): LoadedProject {
	let p = projects.get(rel);
	if (!p) {
		const dir = path.join(SUITE_DIR, 'projects', rel);
		const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
		const catalog = JSON.parse(readFileSync(path.join(dir, 'catalog.json'), 'utf8'));
		const names = new Map<string, string | null>();
		for (const n of [...Object.values(manifest.nodes), ...Object.values(manifest.sources)] as { unique_id: string; meta: { case_table: string | null } }[])
			names.set(n.unique_id, n.meta.case_table);
		p = { plan: inferencePlan(manifest, catalog), names };
		projects.set(rel, p);
	}
	return p;
}

function runModels(run: CaseRun): OurAnswer {
	const { plan, names } = loadProject(projectOf(run.source, run.c));
	const slug = slugOf(run.c.id);
	const order = [...run.c.upstream.map((u) => modelNode(slug, u.name.toLowerCase())), modelNode(slug, null)];
	const inferred = new Map<string, string[]>();
	const resolver = resolverOf(plan, inferred);
	const answer: OurAnswer = { edges: [], scans: [], outcomes: [] };
	for (const node of order) {
		const m = plan.models.find((x) => x.node === node)!;
		const result = inferModel({ sql: m.sql!, dialect: run.dialect, resolve: resolver.forModel(m), outputColumns: m.outputColumns });
		const to = names.get(node) ?? null;
		answer.outcomes.push({ what: to ?? 'model', outcome: result.outcome, reason: result.outcome === 'failed' ? result.message : result.outcome === 'partial' ? result.untraced[0]?.reason ?? null : null });
		if (result.outcome === 'failed') continue;
		if (!m.outputColumns) inferred.set(node, result.columns.map((c) => c.name));
		for (const c of result.columns) for (const i of c.inputs) answer.edges.push([names.get(i.node) ?? i.node, i.column, to, c.name]);
		for (const s of result.scanned) answer.scans.push([names.get(s.node) ?? s.node, s.column]);
		for (const s of result.starSources ?? []) answer.edges.push([names.get(s) ?? s, '*', to, '*']);
	}
	return answer;
}

/** A script's names: every table is a relation of that name, with the columns the case's test gives it. */
export function scriptResolver(c: SuiteCase): NameResolver {
	const schema = new Map(Object.entries(c.schema).map(([k, v]) => [k.toLowerCase(), v]));
	return (parts) => {
		const name = parts.join('.').toLowerCase();
		const columns = schema.get(name) ?? null;
		return { node: name, label: name, columns, complete: columns !== null };
	};
}

function runScript(run: CaseRun): OurAnswer {
	const text = readFileSync(path.join(SUITE_DIR, 'scripts', scriptOf(run.source, run.c)), 'utf8');
	const session = new LineageSession({ resolve: scriptResolver(run.c) });
	const answer: OurAnswer = { edges: [], scans: [], outcomes: [] };
	const statements = splitStatements(blankComments(text));
	for (const [k, st] of statements.entries()) {
		const head = statementHead(st.text);
		const r = session.run(parseStatement(st.text, run.dialect as SqlDialect, { head }));
		answer.outcomes.push({ what: `${r.kind}${r.target ? ` ${r.target.label}` : ''}`, outcome: r.outcome, reason: r.reason });
		const to = r.target?.node ?? null;
		if (!to) continue;
		// End-to-end truth: a table a later statement reads back is a step of the path, not its end
		// (the session already carries what it holds into what reads it).
		const last = to.split('.').pop()!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		if (run.c.path_ends && statements.slice(k + 1).some((later) => new RegExp(`\\b${last}\\b`, 'i').test(later.text))) continue;
		for (const s of r.starSources ?? []) answer.edges.push([s, '*', to, '*']);
		for (const c of r.columns ?? []) if (c.name !== null) for (const i of c.inputs) answer.edges.push([i.node, i.column, to, c.name]);
		for (const s of r.scanned) answer.scans.push([s.node, s.column]);
	}
	return answer;
}

export function runOurs(run: CaseRun): OurAnswer {
	return run.c.form === 'model' ? runModels(run) : runScript(run);
}
