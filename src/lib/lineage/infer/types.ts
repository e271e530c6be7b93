// The shapes of column-lineage inference: one model's compiled SQL in, its column
// edges and an honest outcome out. Pure data, so a worker thread can send them as they are.
import type { LineageKind, SqlDialect } from '../sql-lineage/types';

/** A model's time budget, in ms (the evaluation's after parsing in one call; the whole model's in the pool). */
export const DEFAULT_BUDGET_MS = 10_000;

/** How an input column reaches an output column (the engine's kinds; docs/column-lineage.md). */
export type InferredKind = LineageKind;

/** The SQL dialects inference parses (the engine's); an adapter outside them falls back to `generic`. */
export type InferDialect = SqlDialect;

/** A relation the SQL reads that is a manifest node. */
export interface ParentRelation {
	/** The manifest unique_id (`model.p.x`, `source.p.s.t`, `seed.p.x`, `snapshot.p.x`). */
	node: string;
	/** The relation's columns in catalog order; null when neither the catalog nor the manifest knows them. */
	columns: string[] | null;
	/** With no catalog columns: the manifest's declared (YAML) columns, maybe not all of them. */
	declared?: string[] | null;
}

/** Resolves a relation as written in the SQL (unquoted parts, e.g. `['db', 'main', 'stg_orders']`). */
export type RelationLookup = (parts: string[]) => ParentRelation | null;

export interface InferInput {
	sql: string;
	dialect: InferDialect;
	resolve: RelationLookup;
	/** The model's own columns in catalog order: output names take their spelling (and, for unnamed expressions, their name by position). */
	outputColumns?: string[] | null;
	/** Evaluation budget after parsing, in ms (the parse itself cannot be interrupted; the pool bounds it). */
	budgetMs?: number;
}

export interface InputColumn {
	node: string;
	column: string;
	kind: 'copy' | 'mod';
}

export interface OutputColumn {
	name: string;
	/** Copy/mod inputs; empty for a literal-only column (or an untraced one, listed in `untraced`). */
	inputs: InputColumn[];
}

export interface Untraced {
	column: string;
	reason: string;
}

export interface InferredEdge {
	fromNode: string;
	fromColumn: string;
	toColumn: string;
	kind: InferredKind;
}

interface Traced {
	columns: OutputColumn[];
	/** Columns read only to filter, join or group: by the engine's convention they are `scan` into every output. */
	scanned: { node: string; column: string }[];
	/** Things that did not stop the model's columns from being traced (e.g. a filter on an unknown column). */
	warnings: string[];
	/** Relations whose columns, not known, pass through a `*` of the output (each unlisted column is one of theirs). */
	starSources?: string[];
}

export type InferResult =
	| ({ outcome: 'analyzed' } & Traced)
	| ({ outcome: 'partial'; untraced: Untraced[] } & Traced)
	| { outcome: 'failed'; message: string; line: number | null; column: number | null };
