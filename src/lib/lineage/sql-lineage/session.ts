// Statements in order → the lineage of each: what it writes (CREATE TABLE … AS, CREATE VIEW,
// INSERT … SELECT with or without a column list, by name or by position), what it reads (every
// query, COPY … TO), and one outcome each. A table the statements write is read back by later
// statements through what was written to it, so a column of a temporary table traces to where
// its value came from. A dbt model is one query statement of its own session.
import type { ParsedStatement } from './parse';
import { expressionText } from './parse';
import { evaluateQuery, knownRel, mergeEdges, renameColumns, tableNameParts, TooComplex, unknownRel, type Ast, type Col, type QueryContext, type Rel } from './query';
import { dmlKind, insertTree, mergeTree, updateTree } from './dml';
import { querySpan, TREE_VERBS, type StatementHead } from './text';
import type { KnownRelation, NameResolver, StatementColumn, StatementLineage, StatementTarget, Untraced } from './types';

/** Warehouses that name an unnamed output expression by its text (`max(a)`), not by position (`_col0`, `f0_`). */
const NAMED_BY_TEXT = new Set<ParsedStatement['dialect']>(['duckdb', 'snowflake', 'spark', 'databricks', 'hive', 'generic']);

/** One statement's evaluation budget after parsing, in ms (the parse itself cannot be interrupted). */
export const DEFAULT_STATEMENT_BUDGET_MS = 10_000;

export interface SessionOptions {
	resolve: NameResolver;
	/** Per statement, after parsing. */
	budgetMs?: number;
}

const lower = (s: string) => s.toLowerCase();
const isObj = (v: unknown): v is Record<string, Ast> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Written {
	target: StatementTarget;
	/** Where later statements find what it holds. */
	key: string;
	known: KnownRelation | null;
}

export class LineageSession {
	private readonly resolve: NameResolver;
	private readonly budgetMs: number;
	/** What the statements wrote: `node:<id>` for a known relation, `name:<name>` for one of the script's own. */
	private readonly tables = new Map<string, Rel>();

	constructor(opts: SessionOptions) {
		this.resolve = opts.resolve;
		this.budgetMs = opts.budgetMs ?? DEFAULT_STATEMENT_BUDGET_MS;
	}

	/**
	 * The lineage of one statement, after those run before it. `outputColumns`: the real names of
	 * a query's output columns in order (a model's catalog entry), which name unnamed expressions.
	 * Never throws: every failure is an outcome.
	 */
	run(st: ParsedStatement, opts: { outputColumns?: string[] | null } = {}): StatementLineage {
		const h = st.head;
		const out: StatementLineage = {
			kind: h.kind,
			outcome: 'skipped',
			reason: null,
			position: null,
			target: null,
			columns: null,
			scanned: [],
			untraced: [],
			reads: [],
			unresolved: [],
			notes: [],
			scanUntraced: []
		};
		const reads = new Set<string>();
		const ctx: QueryContext & { unresolved: Map<string, string> } = {
			relation: (parts) => this.relation(parts, reads, ctx.unresolved),
			notes: [],
			filterNotes: [],
			unresolved: new Map(),
			depth: 0,
			deadline: 0,
			budgetMs: this.budgetMs,
			dialect: st.dialect
		};
		const close = () => {
			out.reads = [...reads];
			out.unresolved = [...ctx.unresolved].map(([label, reason]) => ({ label, reason }));
			out.notes = ctx.notes;
			out.scanUntraced = ctx.filterNotes;
			if (out.outcome !== 'failed' && out.outcome !== 'skipped') {
				out.outcome = out.untraced.length ? 'partial' : 'analyzed';
				out.reason = out.untraced[0]?.reason ?? null;
			}
			return out;
		};
		const fail = (reason: string) => {
			out.outcome = 'failed';
			out.reason = reason;
			return close();
		};
		const skip = (reason: string) => {
			out.outcome = 'skipped';
			out.reason = reason;
			return close();
		};

		switch (h.kind) {
			case 'attach':
			case 'use':
				return skip(`${h.kind.toUpperCase()} names databases; it moves no data`);
			case 'ignored':
				return skip(`${h.verb} moves no data between tables`);
			case 'unknown':
				return skip(`statement not analysed${h.verb ? ` (${h.verb})` : ''}`);
			case 'modify': {
				out.target = this.writeTarget(h.name, false).target;
				if (!TREE_VERBS.has(h.verb)) return skip(`${h.verb} is not analysed for column lineage`);
				break;
			}
			case 'copy_from': {
				out.target = this.writeTarget(h.name, false).target;
				return skip('COPY … FROM fills the table from a file: its columns come from no relation');
			}
			case 'create': {
				const w = this.writeTarget(h.name, h.temp);
				out.target = w.target;
				this.tables.set(w.key, {
					label: w.target.label,
					node: null,
					complete: true,
					ordered: true,
					columns: h.columns.map((name) => ({ name, edges: [] })),
					scans: new Map()
				});
				return skip('CREATE TABLE with column definitions creates an empty table');
			}
		}

		// The statements that hold a query.
		const w = h.kind === 'create_as' ? this.writeTarget(h.name, h.temp) : h.kind === 'insert' ? this.writeTarget(h.name, false) : null;
		if (w) out.target = w.target;
		const notAnalysed = (why: string) => {
			// What a statement not analysed wrote is not known: later reads of it must not see older contents.
			if (w && h.kind === 'create_as') this.tables.set(w.key, unknownRel(w.target.label, `${w.target.label} was written by a statement not analysed (${why})`));
		};
		if (st.failure) {
			notAnalysed(st.failure.message);
			out.position = st.failure.position;
			return fail(st.failure.message);
		}
		if (h.kind === 'copy_to' && !st.query) {
			if (h.name) ctx.relation(h.name);
			out.outcome = 'analyzed';
			return close();
		}
		if (!st.query) {
			if (st.other && dmlKind(st.other)) return this.runTree(st, ctx, out, reads, close, fail);
			if (st.other) {
				const why = this.other(st.other, ctx);
				notAnalysed(why);
				out.position = { line: st.text.slice(0, querySpan(h, st.text.length)?.[0] ?? 0).split('\n').length, column: null };
				return fail(why);
			}
			if (querySpan(h, st.text.length) === null) return skip('no query to trace');
			notAnalysed('its query was not read');
			return skip('its query was not read');
		}

		let rel: Rel;
		ctx.deadline = performance.now() + this.budgetMs;
		try {
			rel = evaluateQuery(st.query, ctx);
		} catch (e) {
			const why = e instanceof TooComplex || e instanceof RangeError ? `too complex to analyse: ${e.message}` : `the parsed query could not be read: ${(e as Error).message ?? e}`;
			notAnalysed(why);
			return fail(why);
		}
		out.outcome = 'analyzed';
		out.scanned = [...rel.scans.values()];

		switch (h.kind) {
			case 'query':
				Object.assign(out, describe(rel, opts.outputColumns ?? null, st.dialect));
				return close();
			case 'copy_to':
				// The rows go to a file: what they read counts, their columns feed nothing.
				return close();
			case 'create_as': {
				if (h.columns) rel = rel.complete ? renameColumns(rel, h.columns) : { ...unknownRel(rel.label, `cannot name the columns of ${w!.target.label} by position: ${rel.unknown ?? 'the query’s columns are not all known'}`), scans: rel.scans };
				this.tables.set(w!.key, { ...rel, label: w!.target.label, node: null });
				Object.assign(out, describe(rel, null, st.dialect));
				return close();
			}
			case 'insert':
				this.insert(w!, h, rel, out, st.dialect);
				return close();
		}
		return close();
	}

	/** What an INSERT … SELECT writes into its target, matched by name, by its column list or by position. */
	private insert(w: Written, h: InsertShape, rel: Rel, out: StatementLineage, dialect: ParsedStatement['dialect']): void {
		const into = this.tables.get(w.key) ?? (w.known ? knownRel(w.known) : null);
		const mapped = insertColumns(h, rel, into, w.target.label);
		if ('why' in mapped) {
			out.untraced = [{ column: '*', reason: mapped.why }];
			// `INSERT INTO t SELECT * FROM s` over columns of neither known: t's columns are s's, in order.
			if (rel.columns?.length === 0 && rel.starFrom?.length) out.starSources = rel.starFrom;
			return;
		}
		if (mapped.assumed && NAMED_BY_TEXT.has(dialect)) {
			// Matched by name: an unnamed expression is named as these warehouses name it, by its text.
			mapped.columns = mapped.columns.map((c) => (c.name === null && c.expr !== undefined ? { ...c, name: expressionText(c.expr, dialect) } : c));
		}
		const written = this.tables.get(w.key);
		if (written?.columns) this.tables.set(w.key, { ...written, columns: mergeInto(written.columns, mapped.columns) });
		const described = describe({ ...rel, columns: mapped.columns, complete: h.byName || mapped.assumed ? rel.complete : true }, null, dialect);
		Object.assign(out, described);
		if (mapped.assumed) out.untraced = [{ column: '*', reason: mapped.assumed }, ...out.untraced.filter((u) => u.column !== '*')];
	}

	/**
	 * A statement read from the parser's tree: INSERT (Hive's OVERWRITE … PARTITION, an INSERT after
	 * WITH), UPDATE … [FROM], MERGE. What it writes is traced through the SELECTs ./dml.ts makes of it.
	 */
	private runTree(
		st: ParsedStatement,
		ctx: QueryContext,
		out: StatementLineage,
		reads: Set<string>,
		close: () => StatementLineage,
		fail: (why: string) => StatementLineage
	): StatementLineage {
		const kind = dmlKind(st.other)!;
		const v = st.other[kind];
		out.kind = kind;
		ctx.deadline = performance.now() + this.budgetMs;
		try {
			if (kind === 'insert') {
				const ins = insertTree(v);
				const name = tableNameParts(ins.table);
				const w = this.writeTarget(name, false);
				out.target = w.target;
				if (!ins.query) {
					out.outcome = 'skipped';
					out.reason = 'INSERT … VALUES: its values come from no relation';
					return close();
				}
				const rel = evaluateQuery(ins.query, ctx);
				out.outcome = 'analyzed';
				out.scanned = [...rel.scans.values()];
				this.insert(w, { name, columns: ins.columns, byName: ins.byName, staticPartition: ins.staticPartition }, rel, out, st.dialect);
				return close();
			}
			if (kind === 'update') {
				const u = updateTree(v);
				const w = this.writeTarget(tableNameParts(u.table), false);
				out.target = w.target;
				const evaluated = evaluateQuery(u.select, ctx);
				const rel = { ...evaluated, columns: namedAsTarget(evaluated.columns ?? [], this.tables.get(w.key) ?? (w.known ? knownRel(w.known) : null)) };
				// The target's own rows are read only to be changed: not a read of the statement.
				if (w.target.node) reads.delete(w.target.node);
				out.outcome = 'analyzed';
				out.scanned = [...rel.scans.values()];
				this.update(w, rel.columns);
				Object.assign(out, describe({ ...rel, complete: true }, null, st.dialect));
				return close();
			}
			const m = mergeTree(v);
			if (!m) return fail('a MERGE whose target is not a table: not analysed');
			const w = this.writeTarget(tableNameParts(m.table), false);
			out.target = w.target;
			const scans = new Map(evaluateQuery(m.conditions, ctx).scans);
			const byName = new Map<string, Col>();
			const untraced: { column: string; reason: string }[] = [];
			const starFrom: string[] = [];
			const into = this.tables.get(w.key) ?? (w.known ? knownRel(w.known) : null);
			for (const b of m.branches) {
				const rel = evaluateQuery(b.select, ctx);
				for (const [k, x] of rel.scans) scans.set(k, x);
				let cols = rel.columns ?? [];
				if (b.positional) {
					// `INSERT VALUES (…)` without a column list: the target's columns, by position.
					const names = into?.complete && into.ordered && into.columns ? into.columns.map((c) => c.name) : null;
					if (!names || names.length !== cols.length) {
						untraced.push({ column: '*', reason: `MERGE … INSERT VALUES without a column list: ${names ? `${cols.length} values for ${names.length} columns` : `the columns of ${w.target.label} are unknown`}` });
						continue;
					}
					cols = cols.map((c, k) => ({ ...c, name: names[k] }));
				}
				if (b.star && !rel.complete) {
					untraced.push({ column: '*', reason: rel.unknown ?? 'MERGE … INSERT * over columns not known' });
					starFrom.push(...(rel.starFrom ?? []));
				}
				for (const c of cols) {
					if (c.name === null) continue;
					const prev = byName.get(lower(c.name));
					if (!prev) byName.set(lower(c.name), c);
					else if (prev.untraced || c.untraced) byName.set(lower(c.name), { name: prev.name, edges: [], untraced: prev.untraced ?? c.untraced });
					else byName.set(lower(c.name), { name: prev.name, edges: mergeEdges(prev.edges, c.edges) });
				}
			}
			if (w.target.node) reads.delete(w.target.node);
			out.outcome = 'analyzed';
			out.scanned = [...scans.values()];
			const columns = namedAsTarget([...byName.values()], into);
			this.update(w, columns);
			Object.assign(out, describe({ label: 'MERGE', node: null, complete: true, ordered: true, columns, scans }, null, st.dialect));
			out.untraced = [...untraced, ...out.untraced];
			if (starFrom.length) out.starSources = starFrom;
			for (const kindUnread of m.unread) out.notes.push(`MERGE … THEN ${kindUnread} is not analysed`);
			return close();
		} catch (e) {
			if (e instanceof TooComplex || e instanceof RangeError) return fail(`too complex to analyse: ${e.message}`);
			return fail(`the parsed statement could not be read: ${(e as Error).message ?? e}`);
		}
	}

	/** Columns an UPDATE or MERGE wrote, merged into what later statements read of a table the script made. */
	private update(w: Written, columns: Col[]): void {
		const written = this.tables.get(w.key);
		if (written?.columns) this.tables.set(w.key, { ...written, columns: mergeInto(written.columns, columns) });
	}

	/** A table name outside any CTE: what the script wrote to it, else what the caller knows. */
	private relation(parts: string[], reads: Set<string>, unresolved: Map<string, string>): Rel {
		const local = this.tables.get(`name:${parts.map(lower).join('.')}`);
		if (local) return local;
		const label = parts.join('.');
		const r = this.resolve(parts);
		if ('unknown' in r) {
			if (!unresolved.has(label)) unresolved.set(label, r.unknown);
			return unknownRel(label, r.unknown);
		}
		const written = this.tables.get(`node:${r.node}`);
		if (written) return written;
		reads.add(r.node);
		return knownRel(r);
	}

	/** A written table: a known relation, or (temporary, or not resolved) one of the script's own. */
	private writeTarget(name: string[], temp: boolean): Written {
		if (!temp) {
			const r = this.resolve(name);
			if (!('unknown' in r)) return { target: { name, node: r.node, label: r.label }, key: `node:${r.node}`, known: r };
			if (name.length > 1) return { target: { name, node: null, label: name.join('.'), unknown: r.unknown }, key: `name:${lower(name[name.length - 1])}`, known: null };
		}
		return { target: { name, node: null, label: name.join('.') }, key: `name:${lower(name[name.length - 1])}`, known: null };
	}

	/** A statement the parser read as something other than a query where one was expected. */
	private other(tree: Ast, ctx: QueryContext): string {
		const [kind] = Object.keys(tree);
		if (kind === 'pivot' || kind === 'unpivot') {
			// DuckDB's PIVOT statement: what it reads counts, even though its columns are not traced.
			const src = tree[kind]?.this;
			const parts = isObj(src?.table) ? tableNameParts(src.table) : isObj(src?.column) ? [src.column.table?.name, src.column.name?.name].filter((p): p is string => typeof p === 'string') : [];
			if (parts.length) ctx.relation(parts);
			return `${kind.toUpperCase()} is not analysed: its output columns are named by values in the data`;
		}
		return `a ${kind} statement where a query was expected: not analysed`;
	}
}

/** Merges what an INSERT wrote into a table the script made, column by column (by name). */
function mergeInto(columns: Col[], inserted: Col[]): Col[] {
	const byName = new Map(inserted.filter((c) => c.name !== null).map((c) => [lower(c.name!), c]));
	return columns.map((c) => {
		const add = c.name === null ? undefined : byName.get(lower(c.name));
		if (!add) return c;
		const untraced = c.untraced ?? add.untraced;
		if (untraced) return { name: c.name, edges: [], untraced };
		const seen = new Map(c.edges.map((e) => [`${e.node}\u0000${e.column}`, e]));
		for (const e of add.edges) {
			const k = `${e.node}\u0000${e.column}`;
			const prev = seen.get(k);
			seen.set(k, prev && prev.kind !== e.kind ? { ...prev, kind: 'mod' } : (prev ?? e));
		}
		return { name: c.name, edges: [...seen.values()] };
	});
}

interface InsertShape {
	name: string[];
	columns: string[] | null;
	byName: boolean;
	/** Target columns a PARTITION clause fills with a constant (Hive, Spark): the query does not fill them. */
	staticPartition?: string[];
}

/**
 * The target's columns an INSERT fills: by name, by its column list, or by the target's columns'
 * positions. Without a column list into a target whose columns are not known, the query's names
 * are taken for the target's (`assumed` says so: the statement is partial, with that reason), as
 * a target made by `CREATE TABLE … AS` of the same query would have them.
 */
function insertColumns(h: InsertShape, rel: Rel, target: Rel | null, label: string): { columns: Col[]; assumed?: string } | { why: string } {
	if (rel.columns === null) return { why: rel.unknown ?? 'the columns of the inserted rows are not known' };
	if (h.byName) return { columns: rel.columns };
	const partition = new Set((h.staticPartition ?? []).map(lower));
	const known = target?.complete && target.ordered && target.columns ? target.columns.filter((c) => c.name === null || !partition.has(lower(c.name))).map((c) => c.name) : null;
	const names = h.columns ?? known;
	const name = h.name.join('.');
	if (!names || names.some((n) => n === null)) {
		const assumed = `INSERT INTO ${name} without a column list: the columns of ${label} are unknown, so values are matched to it by their names (the warehouse matches by position)`;
		if (rel.columns.length > 0) return { columns: rel.columns, assumed };
		return { why: `INSERT INTO ${name} without a column list: the columns of ${label} are unknown, so values cannot be matched by position` };
	}
	if (!rel.complete || !rel.ordered || rel.columns.length !== names.length) {
		const what = !rel.ordered ? 'values in an unknown order' : `${rel.complete ? rel.columns.length : 'an unknown number of'} values`;
		return { why: `INSERT INTO ${name}: ${what} for ${names.length} columns` };
	}
	return { columns: rel.columns.map((c, k) => ({ ...c, name: names[k] })) };
}

/** Written columns named as the target's known columns are (an unquoted `SET amount` folds to `AMOUNT` on Snowflake; the target says how it is stored). */
function namedAsTarget(columns: Col[], into: Rel | null): Col[] {
	if (!into?.columns) return columns;
	const known = new Map(into.columns.filter((c) => c.name !== null).map((c) => [lower(c.name!), c.name!]));
	return columns.map((c) => (c.name !== null && known.has(lower(c.name)) ? { ...c, name: known.get(lower(c.name))! } : c));
}

/**
 * A relation's columns as a statement's output. `catalog`: the real names of the output in order
 * (they name unnamed expressions by position, and stand for columns a `*` could not list).
 */
function describe(rel: Rel, catalog: string[] | null, dialect: ParsedStatement['dialect']): { columns: StatementColumn[]; untraced: Untraced[]; starSources?: string[] } {
	const untraced: Untraced[] = [];
	const ours = rel.columns ?? [];
	const toOutput = (name: string | null, c: Col, k: number): StatementColumn => {
		const shown = name ?? `_col${k}`;
		if (c.untraced) untraced.push({ column: shown, reason: c.untraced });
		else if (name === null) untraced.push({ column: shown, reason: 'an expression without a name, and no catalog entry to name it' });
		const col: StatementColumn = { name, inputs: c.untraced ? [] : c.edges.map((e) => ({ node: e.node, column: e.column, kind: e.kind })) };
		if (c.untraced) col.untraced = c.untraced;
		if (name === null && c.expr !== undefined) col.text = expressionText(c.expr, dialect) ?? undefined;
		return col;
	};
	if (catalog !== null && rel.complete && catalog.length === ours.length) {
		return { columns: ours.map((c, k) => toOutput(catalog[k], c, k)), untraced };
	}
	if (catalog !== null) {
		// The SQL's list is not all of the columns (a `*` over a relation whose columns are not
		// known): the catalog's list is, and a column the SQL does not list comes through the one open `*`.
		const byName = new Map(ours.filter((c) => c.name !== null).map((c) => [lower(c.name!), c]));
		const why = rel.complete ? `the SQL's output has ${ours.length} columns where the catalog has ${catalog.length}` : (rel.unknown ?? 'the output columns are not all known');
		const columns = catalog.map((name, k) => {
			const c: Col =
				byName.get(lower(name)) ??
				(rel.open ? { name, edges: [{ node: rel.open, column: name, kind: 'copy' }] } : rel.fromFunction ? { name, edges: [] } : { name, edges: [], untraced: why });
			return toOutput(name, c, k);
		});
		return { columns, untraced };
	}
	const columns = ours.map((c, k) => toOutput(c.name, c, k));
	if (!rel.complete || rel.columns === null) untraced.push({ column: '*', reason: rel.unknown ?? 'the output columns are not all known' });
	return { columns, untraced, ...(!rel.complete && rel.starFrom?.length ? { starSources: rel.starFrom } : {}) };
}
