// The column impact read (issue 16, item 7) between the routes and the repo: query parsing (400s
// naming the parameter), the gates — exactly column lineage's, since an impact list is column
// lineage walked one way — and the walk across dbt's lineage and the producers' lineage.
import { assetColumns, columnId, connectedComponent, dbtRelationsOf } from '../lineage/column-trace';
import {
	buildImpactGraph,
	COLUMN_IMPACT_LIMIT,
	impactCsv,
	impactIds,
	impactRelations,
	isImpactDirection,
	producerTouchedRelations,
	walkColumnImpact,
	type ImpactDirection,
	type ImpactEntry,
	type ProducerLineageOf
} from '../lineage/column-impact';
import type { ColumnLineageAnswer } from '../types/asset-graph';
import type { ColumnImpactAnswer, ColumnImpactTest } from '../types/column-impact';
import {
	assetPathGate,
	authoredPathFilter,
	authoredShownOf,
	pinnedAuthoredShown,
	readableVersion,
	type JobAccess,
	type PinnedAccess,
	type Principal
} from './access';
import type { Database } from './db';
import { badRequest } from './http';
import { groupProducerLineage, MAX_ASSET_PATHS, parseAssetPaths, parseScriptHash, pinnedColumnLineage, unpinnedColumnLineage } from './lineage-api';
import {
	lineageOwners,
	pinnedGraphOf,
	readableProducerLineage,
	relationHasColumn,
	relationsIn,
	relationTests,
	type PinnedGraph,
	type RelationTestRow
} from './repo/lineage';
import type { GraphKey } from './repo/graph';

// ─── Query parsing ─────────────────────────────────────────────────────────────────────────

export interface ImpactQuery {
	kind: 'dbt' | 'ducklake';
	assetPath: string;
	column: string;
	direction: ImpactDirection;
	format: 'json' | 'csv';
	/** Unpinned only: a named dbt version, as on column lineage. */
	scriptHash: bigint | null;
}

const MAX_PATH = 255;
const MAX_COLUMN = 255;
// A lake table's path: what a producer's annotation names, `<catalog>/<table>` or with a schema.
const LAKE_PATH = /^[A-Za-z0-9_$]+(?:\/[A-Za-z0-9_$]+(?:[.-][A-Za-z0-9_$]+)*){1,2}$/;
// Column names are the engine's, so almost anything: but not a control character, and not empty.
const CONTROL = /[\u0000-\u001f\u007f]/;

function once(q: URLSearchParams, name: string, what: string): string | undefined {
	const all = q.getAll(name);
	if (all.length > 1) throw badRequest(`${name} may be given once: ${what}`);
	return all[0];
}

/**
 * `asset_path=` once (a dbt relation as column lineage takes it, or `ducklake://<path>` for a
 * lake table), `column=`, `direction=downstream|upstream` (default downstream), `format=json|csv`
 * (default json), and `dbt_script_hash=` as on column lineage.
 */
export function parseImpactQuery(q: URLSearchParams): ImpactQuery {
	const what = 'one relation, dbt://<warehouse>/<schema>/<name> or ducklake://<path>';
	const raw = once(q, 'asset_path', what);
	if (raw === undefined || raw === '') throw badRequest(`asset_path is required: ${what}`);
	if (raw.length > MAX_PATH + 'ducklake://'.length) throw badRequest(`asset_path is ${raw.length} characters; at most ${MAX_PATH}: ${what}`);
	let kind: ImpactQuery['kind'] = 'dbt';
	let assetPath: string;
	if (raw.startsWith('ducklake://')) {
		kind = 'ducklake';
		assetPath = raw.slice('ducklake://'.length);
		if (!LAKE_PATH.test(assetPath)) throw badRequest('asset_path: a lake table is ducklake://<catalog>/<table> (letters, digits, _ and $, joined by . or -)');
	} else {
		assetPath = parseAssetPaths(new URLSearchParams([['asset_path', raw]]))[0];
	}
	const column = once(q, 'column', 'one column name');
	if (column === undefined || column === '') throw badRequest(`column is required: the name of one column of ${kind}://${assetPath}`);
	if (column.length > MAX_COLUMN || CONTROL.test(column)) throw badRequest(`column must be a column name: 1 to ${MAX_COLUMN} characters, no control characters`);
	const direction = once(q, 'direction', 'downstream or upstream') ?? 'downstream';
	if (!isImpactDirection(direction)) throw badRequest(`direction must be downstream or upstream (got ${JSON.stringify(direction.slice(0, 40))})`);
	const format = once(q, 'format', 'json or csv') ?? 'json';
	if (format !== 'json' && format !== 'csv') throw badRequest(`format must be json or csv (got ${JSON.stringify(format.slice(0, 40))})`);
	return { kind, assetPath, column, direction, format, scriptHash: parseScriptHash(q) };
}

// ─── The walk ──────────────────────────────────────────────────────────────────────────────

export interface ImpactOptions {
	/** The bound on listed columns (COLUMN_IMPACT_LIMIT; smaller only in tests). */
	limit?: number;
}

/** Walks with more of dbt's lineage at most this many times: each round follows producers one step further into dbt. */
const MAX_ROUNDS = 8;

const noImpact = (): ColumnImpactAnswer => ({ columns: [], truncated: false, withheld: 0, tests: {} });

const unknownColumn = (q: ImpactQuery) => badRequest(`column: ${q.kind}://${q.assetPath} has no column ${JSON.stringify(q.column.slice(0, 80))}`);

function testsByRelation(rows: readonly RelationTestRow[]): Record<string, ColumnImpactTest[]> {
	const out: Record<string, ColumnImpactTest[]> = {};
	for (const r of rows) (out[r.assetPath] ??= []).push({ kind: r.kind, column: r.column, severity: r.severity });
	return out;
}

interface Walked {
	answer: Omit<ColumnImpactAnswer, 'tests'>;
	/** Whether the graph walked holds the start column (else it may still be a described column without lineage). */
	startKnown: boolean;
	/** The dbt relations whose lineage was read. */
	asked: string[];
}

/**
 * Walks from the start over dbt's lineage of `asked` and the producers' lineage; where the walk
 * crosses a producer into a dbt relation not yet read, reads that relation's lineage too and
 * walks again, until nothing new is reached.
 */
async function walkAcross(
	q: ImpactQuery,
	initial: readonly string[],
	producers: readonly ProducerLineageOf[],
	lineageOf: (paths: string[]) => Promise<ColumnLineageAnswer>,
	visible: (path: string) => boolean,
	opts: ImpactOptions
): Promise<Walked> {
	const asked = new Set(initial);
	const start = { kind: q.kind, path: q.assetPath, column: q.column };
	for (let round = 0; ; round++) {
		const lineage = asked.size ? await lineageOf([...asked].sort()) : { edges: [], truncated: false };
		const ig = buildImpactGraph(lineage.edges, producers);
		const walk = walkColumnImpact(ig, start, q.direction, { limit: opts.limit ?? COLUMN_IMPACT_LIMIT, visible: (n) => visible(n.path) });
		const more = producerTouchedRelations(ig, impactIds(walk.columns)).filter((r) => !asked.has(r));
		const capped = asked.size + more.length > MAX_ASSET_PATHS || round + 1 >= MAX_ROUNDS;
		if (more.length === 0 || capped) {
			return {
				answer: { ...walk, truncated: walk.truncated || lineage.truncated || more.length > 0 },
				startKnown: ig.graph.nodes.has(columnId(start.kind, start.path, start.column)),
				asked: [...asked].sort()
			};
		}
		for (const r of more) asked.add(r);
	}
}

/** The tests on the listed dbt relations, from the graphs the lineage came from. */
async function testsOf(h: Database, keys: readonly GraphKey[], columns: readonly ImpactEntry[]): Promise<Record<string, ColumnImpactTest[]>> {
	return testsByRelation(await relationTests(h, keys, impactRelations(columns)));
}

/**
 * Unpinned impact: column lineage's gate (the projects the caller may read authored parts of,
 * in SQL; a named version it may not read answers nothing), the producers the caller may read
 * the script of, and the token's `assets:read` narrowing per listed column (withheld, counted).
 * An asked relation no readable project describes answers an empty list — the same answer as
 * one that does not exist, so relations cannot be probed; a readable one without the column is
 * a 400.
 */
export async function unpinnedColumnImpact(h: Database, p: Principal, q: ImpactQuery, opts: ImpactOptions = {}): Promise<ColumnImpactAnswer> {
	const named = await readableVersion(h, p, q.scriptHash);
	if (named && !authoredShownOf(p, named.path)) return noImpact();
	const filter = authoredPathFilter(p);
	const grouped = groupProducerLineage(await readableProducerLineage(h, p.workspace, filter));
	const producers = [...grouped].map(([path, column_lineage]) => ({ path, column_lineage }));
	let initial: string[];
	if (q.kind === 'dbt') {
		const owners = await lineageOwners(h, p.workspace, [q.assetPath], filter, named);
		if (owners.length === 0) return noImpact();
		initial = [q.assetPath];
	} else {
		const pg = buildImpactGraph([], producers).graph;
		const own = assetColumns(pg, 'ducklake', q.assetPath);
		if (own.length === 0) return noImpact();
		if (!pg.nodes.has(columnId('ducklake', q.assetPath, q.column))) throw unknownColumn(q);
		initial = dbtRelationsOf(connectedComponent(own, pg), pg);
	}
	const walked = await walkAcross(
		q,
		initial,
		producers,
		(paths) => unpinnedColumnLineage(h, p, paths, q.scriptHash),
		assetPathGate(p),
		opts
	);
	const keys = (await lineageOwners(h, p.workspace, walked.asked, filter, named)).map((o) => o.key);
	if (q.kind === 'dbt' && !walked.startKnown && !(await relationHasColumn(h, keys, q.assetPath, q.column))) throw unknownColumn(q);
	return { ...walked.answer, tests: await testsOf(h, keys, walked.answer.columns) };
}

/** Impact in a job's pinned graph: dbt's lineage only (a pinned graph holds no producers); nothing for a caller who may not read the project. */
export async function pinnedColumnImpact(h: Database, a: JobAccess, pinned: PinnedGraph, q: ImpactQuery, opts: ImpactOptions = {}): Promise<ColumnImpactAnswer> {
	if (!pinnedAuthoredShown(a, pinned) || q.kind !== 'dbt') return noImpact();
	if ((await relationsIn(h, pinned.key, [q.assetPath])).length === 0) return noImpact();
	const walked = await walkAcross(q, [q.assetPath], [], (paths) => pinnedColumnLineage(h, a, pinned, paths), assetPathGate(a.principal), opts);
	if (!walked.startKnown && !(await relationHasColumn(h, [pinned.key], q.assetPath, q.column))) throw unknownColumn(q);
	return { ...walked.answer, tests: await testsOf(h, [pinned.key], walked.answer.columns) };
}

/** `jobs/dbt_column_impact/{id}`: pinned like jobColumnLineage, with the same fallbacks; the query never names the version. */
export async function jobColumnImpact(h: Database, gate: PinnedAccess, q: ImpactQuery, opts: ImpactOptions = {}): Promise<ColumnImpactAnswer> {
	const unpinned = { ...q, scriptHash: null };
	if (gate.kind === 'no_job') return unpinnedColumnImpact(h, gate.principal, unpinned, opts);
	const pinned = await pinnedGraphOf(h, gate.access.job);
	if (pinned) return pinnedColumnImpact(h, gate.access, pinned, q, opts);
	return gate.access.principal ? unpinnedColumnImpact(h, gate.access.principal, unpinned, opts) : noImpact();
}

// ─── The answer ────────────────────────────────────────────────────────────────────────────

const showTest = (t: ColumnImpactTest) => (t.column ? `${t.kind ?? 'test'}(${t.column})` : (t.kind ?? 'test'));

/**
 * The answer as the route sends it: JSON, or CSV (a header row, one row per column; a row's
 * `tests` are the tests on its relation, `kind(column)`) with `truncated` and
 * `withheld` in headers, since a CSV body has no place for them.
 */
export function impactResponse(answer: ColumnImpactAnswer, q: ImpactQuery): Response {
	const headers: Record<string, string> = { 'cache-control': 'private, no-store' };
	if (q.format === 'json') {
		return new Response(JSON.stringify(answer), { headers: { ...headers, 'content-type': 'application/json' } });
	}
	const csv = impactCsv(answer.columns, (e) =>
		(e.kind === 'dbt' ? (answer.tests[e.asset_path] ?? []) : []).map(showTest)
	);
	const name = `impact-${q.direction}-${q.column}`.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 120);
	return new Response(csv, {
		headers: {
			...headers,
			'content-type': 'text/csv; charset=utf-8',
			'content-disposition': `attachment; filename="${name}.csv"`,
			'x-impact-truncated': String(answer.truncated),
			'x-impact-withheld': String(answer.withheld)
		}
	});
}
