// Wire and stored shape of a dbt project's consumer layer: exposures, semantic models, metrics and
// saved queries. They are not relations (no asset path), so they are kept beside a graph's nodes,
// one list per stored graph, and drawn to the right of the models that feed them.

export const CONSUMER_TYPES = ['semantic_model', 'metric', 'saved_query', 'exposure'] as const;
export type ConsumerType = (typeof CONSUMER_TYPES)[number];

/** An entity, dimension or measure of a semantic model, and the model columns its `expr` reads. */
export interface SemanticField {
	name: string;
	role: 'entity' | 'dimension' | 'measure';
	/** As written; null when the field is the column of its own name. */
	expr: string | null;
	/** A measure's aggregation (`sum`, `count_distinct`, ...). */
	agg?: string | null;
	/** Columns of the semantic model's model; empty for a literal (`1`) or an expr that did not parse. */
	reads: string[];
}

/** A column of a relation node (a dbt unique_id and a column name). */
export interface ConsumerColumn {
	node: string;
	column: string;
}

export interface Consumer {
	unique_id: string;
	type: ConsumerType;
	name: string;
	label: string | null;
	description: string | null;
	/** unique_ids this entry depends on: relation nodes and other consumers. */
	depends_on: string[];
	/** exposures */
	owner?: { name: string | null; email: string | null } | null;
	url?: string | null;
	maturity?: string | null;
	exposure_type?: string | null;
	/** semantic models: the model they describe, and their fields. */
	model?: string | null;
	fields?: SemanticField[];
	/** metrics: simple, ratio, derived, cumulative, conversion. */
	metric_type?: string | null;
	/** metrics: the definition as a reader wants it (expr, measure, numerator, filter, window...). */
	definition?: Record<string, unknown>;
	/** metrics: the measures read (semantic model unique_id + measure name). */
	measures?: { semantic_model: string; name: string }[];
	/** metrics: input metrics; saved queries: the metrics they query. */
	metrics?: string[];
	/** saved queries: group_by as written. */
	group_by?: string[];
	/** metrics and saved queries: every relation column they read, walked down through measures and metrics. */
	columns?: ConsumerColumn[];
	/** What did not resolve (a missing measure, an expr that did not parse, a missing node). */
	warnings?: string[];
}

/** A consumer as the asset graph serves it: its project, and its relation ends as asset paths. */
export interface GraphConsumer extends Omit<Consumer, 'columns'> {
	script_path: string;
	/** The relations it depends on directly, as asset paths (drawn assets only). */
	depends_on_assets: string[];
	/** Metrics and saved queries: the relation columns they read, down through measures. */
	columns?: { asset_path: string; column: string }[];
	/** Semantic models: the asset of their model. */
	model_asset?: string | null;
}
