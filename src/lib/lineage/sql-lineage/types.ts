// The shapes of the SQL-lineage engine: statements in, column edges with kinds and one outcome per
// statement out. dbt models (one query each) and producer scripts (statements in order) both go
// through it. Pure data, so a worker thread can send them as they are.

/** How an input column reaches an output column (the conventions are in docs/column-lineage.md). */
export type LineageKind = 'copy' | 'mod' | 'scan';

/** The SQL dialects the engine parses; anything else is read as `generic`. */
export type SqlDialect =
	| 'duckdb'
	| 'postgres'
	| 'redshift'
	| 'snowflake'
	| 'bigquery'
	| 'databricks'
	| 'spark'
	| 'trino'
	| 'athena'
	| 'tsql'
	| 'fabric'
	| 'mysql'
	| 'clickhouse'
	| 'oracle'
	| 'sqlite'
	| 'teradata'
	| 'hive'
	| 'materialize'
	| 'dremio'
	| 'exasol'
	| 'generic';

/** A relation a name in the SQL stands for, as the caller knows it. */
export interface KnownRelation {
	/** What edges name as their input (a manifest unique_id, an asset URI). */
	node: string;
	/** How reasons and warnings name it. */
	label: string;
	/** Its columns (in order when `ordered`); null when none are known. */
	columns: string[] | null;
	/** Whether `columns` is every column: `*` may expand it and positions may be matched. */
	complete: boolean;
	/** False when the columns are a set (declared columns): nothing is matched to them by position. */
	ordered?: boolean;
}

/** A name that stands for nothing the caller knows, with why (it becomes the untraced reason). */
export interface UnknownRelation {
	unknown: string;
}

/** Resolves a relation as written in the SQL (unquoted parts, e.g. `['db', 'main', 'stg_orders']`). */
export type NameResolver = (parts: string[]) => KnownRelation | UnknownRelation;

export interface ColumnInput {
	node: string;
	column: string;
	kind: 'copy' | 'mod';
}

export interface StatementColumn {
	/** Null for an expression without a name (`text` says which). */
	name: string | null;
	/** Copy/mod inputs; empty for a literal-only column, and for an untraced one. */
	inputs: ColumnInput[];
	/** Why this column's inputs are not known; it is then left out of the lineage. */
	untraced?: string;
	/** The expression of an unnamed column, for the message that asks for a name. */
	text?: string;
}

export interface Untraced {
	column: string;
	reason: string;
}

/** Where in the statement's text a failure is (1-based line and column of the statement). */
export interface SqlPosition {
	line: number;
	column: number | null;
}

export type StatementOutcome = 'analyzed' | 'partial' | 'failed' | 'skipped';

/** The relation a statement writes. */
export interface StatementTarget {
	/** As written. */
	name: string[];
	/** The relation it resolved to; null for a table of the script's own (temporary, or not resolved). */
	node: string | null;
	label: string;
	/** Why a written name is not a known relation (a name of more than one part the resolver refused). */
	unknown?: string;
}

export interface StatementLineage {
	/** The statement's kind, from its head (`query`, `create_as`, `insert`, `copy_to`, …). */
	kind: string;
	outcome: StatementOutcome;
	/** failed / skipped: why; partial: the first untraced reason. */
	reason: string | null;
	/** failed at a parse: where, in the statement. */
	position: SqlPosition | null;
	target: StatementTarget | null;
	/**
	 * What the statement writes to its target (an INSERT's columns already matched to the
	 * target's), or what a query returns; null when not known at all.
	 */
	columns: StatementColumn[] | null;
	/** Columns read only to filter, join or group: `scan` into every written column. */
	scanned: { node: string; column: string }[];
	untraced: Untraced[];
	/** Relations read, by node (not those the script itself wrote earlier). */
	reads: string[];
	/** Names that resolved to nothing, each once, with why: the untraced columns they cause say so too. */
	unresolved: { label: string; reason: string }[];
	/** Things that did not stop the columns from being traced. */
	notes: string[];
	/** Why a column read only to filter, join or group is not traced (a scan is missing), once each. */
	scanUntraced: string[];
	/**
	 * Relations whose columns pass through a `*` that could not be listed (their columns are not
	 * known): every column of the output not listed in `columns` is one of theirs, of the same name.
	 */
	starSources?: string[];
}
