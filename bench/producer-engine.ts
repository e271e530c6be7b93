// Issue 15, item 4's last sentence: does the compiled-SQL inference engine (polyglot-sql's parse
// tree + src/lib/lineage/infer/) serve producer scripts at least as well as what producers use
// (node-sql-parser + src/lib/lineage/producer-lineage.ts)? Over the producer corpus
// (src/lib/server/producers/test-corpus.ts), per case:
//   - parse: each query of the script parsed by both parsers (DuckDB grammar for polyglot-sql;
//     node-sql-parser as producers call it, Snowflake then PostgreSQL);
//   - lineage: the target's columns as the inference engine traces them, statement by statement
//     with the producers' own name resolution (ATTACH/USE, relation paths), against the corpus's
//     hand-written edges, for the columns no annotation decides.
// Not part of `npm run bench`: `npx tsx bench/producer-engine.ts`. bench/README.md has the result.
import { inferModel } from '../src/lib/lineage/infer/infer';
import type { ParentRelation } from '../src/lib/lineage/infer/types';
import { assetUri, columnUri } from '../src/lib/lineage/producer-annotations';
import { applyToContext, blankComments, newNameContext, resolveTableName, splitStatements, statementHead } from '../src/lib/lineage/producer-sql';
import { analyzeProducer } from '../src/lib/server/producers/analyze';
import { parseQuery } from '../src/lib/server/producers/parse-query';
import { CORPUS, CORPUS_CATALOG, CORPUS_WAREHOUSE, type CorpusCase } from '../src/lib/server/producers/test-corpus';
import { parse } from '@polyglot-sql/sdk';

type Head = ReturnType<typeof statementHead>;

function querySpan(head: Head, length: number): [number, number] | null {
	if (head.kind === 'query') return [head.query, head.queryEnd];
	if (head.kind === 'create_as') return [head.query, length];
	if ((head.kind === 'insert' || head.kind === 'copy_to') && head.query !== null) return [head.query, head.queryEnd];
	return null;
}

interface Outcome {
	queries: number;
	polyglotParsed: number;
	nodeSqlParsed: number;
	/** Columns the engine traces like the corpus, and the ones it does not (with why). */
	matched: number;
	comparable: number;
	mismatches: string[];
	producerPasses: boolean;
}

const sorted = (xs: string[]) => [...xs].sort();

function run(c: CorpusCase): Outcome {
	const code = blankComments(c.sql);
	const ctx = newNameContext(CORPUS_WAREHOUSE);
	const out: Outcome = { queries: 0, polyglotParsed: 0, nodeSqlParsed: 0, matched: 0, comparable: 0, mismatches: [], producerPasses: false };
	const written = new Map<string, Record<string, string[]>>();
	const resolve = (parts: string[]): ParentRelation | null => {
		const r = resolveTableName(parts, ctx);
		if (!r.ok) return null;
		const uri = assetUri(r.asset);
		const known = CORPUS_CATALOG[uri];
		return { node: uri, columns: known?.complete ? known.columns : null, declared: known && !known.complete ? known.columns : null };
	};
	for (const st of splitStatements(code)) {
		const head = statementHead(st.text);
		if (head.kind === 'attach' || head.kind === 'use') applyToContext(head, ctx);
		const span = querySpan(head, st.text.length);
		if (!span) continue;
		const text = st.text.slice(span[0], span[1]);
		out.queries++;
		if ((parse(text, 'duckdb' as never) as { success: boolean }).success) out.polyglotParsed++;
		if (parseQuery(text).ok) out.nodeSqlParsed++;
		if (head.kind !== 'create_as' && head.kind !== 'insert') continue;
		const target = resolveTableName(head.name, ctx);
		if (!target.ok) continue;
		const r = inferModel({ sql: text, dialect: 'duckdb', resolve });
		const cols: Record<string, string[]> = {};
		if (r.outcome !== 'failed') for (const col of r.columns) cols[col.name] = col.inputs.map((i) => `${columnUri({ ...parseUri(i.node), column: i.column })} ${i.kind}`);
		written.set(assetUri(target.asset), cols);
	}
	const got = c.target ? written.get(c.target) : undefined;
	for (const [col, edges] of Object.entries(c.columns)) {
		if (edges.some(([, kind]) => kind === 'annotation')) continue;
		out.comparable++;
		const want = sorted(edges.map(([input, kind]) => `${input} ${kind}`));
		const have = got?.[col] ? sorted(got[col]) : null;
		if (have && JSON.stringify(have) === JSON.stringify(want)) out.matched++;
		else out.mismatches.push(`${col}: ${have ? `[${have.join(', ')}]` : 'not traced'} ≠ [${want.join(', ')}]`);
	}
	const a = analyzeProducer(c.sql, CORPUS_WAREHOUSE, (x) => CORPUS_CATALOG[`${x.kind}://${x.path}`] ?? null);
	out.producerPasses = (a.target ? assetUri(a.target) : null) === c.target;
	return out;
}

function parseUri(uri: string): { kind: 'dbt' | 'ducklake'; path: string } {
	const [kind, path] = uri.split('://');
	return { kind: kind as 'dbt' | 'ducklake', path };
}

const rows = CORPUS.map((c) => ({ name: c.name, ...run(c) }));
const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0);
console.log('| case | queries | polyglot-sql parses | node-sql-parser parses | columns traced as the corpus | where the engine differs |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
	if (r.queries === r.polyglotParsed && r.queries === r.nodeSqlParsed && r.matched === r.comparable) continue;
	console.log(`| ${r.name} | ${r.queries} | ${r.polyglotParsed} | ${r.nodeSqlParsed} | ${r.matched}/${r.comparable} | ${r.mismatches.slice(0, 2).join('; ').slice(0, 220)} |`);
}
console.log(
	`\n${rows.length} cases: queries ${sum((r) => r.queries)}, parsed by polyglot-sql ${sum((r) => r.polyglotParsed)}, by node-sql-parser ${sum((r) => r.nodeSqlParsed)}; ` +
		`columns traced as the corpus by the inference engine ${sum((r) => r.matched)}/${sum((r) => r.comparable)}; cases fully matched ${rows.filter((r) => r.matched === r.comparable).length}/${rows.length}`
);
