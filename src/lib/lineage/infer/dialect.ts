import type { InferDialect } from './types';

// dbt adapter names (`metadata.adapter_type`) → the dialect their compiled SQL is written in.
// Adapters whose warehouse speaks another's SQL read as that one (materialize, risingwave and
// cockroachdb speak Postgres; motherduck is DuckDB; glue and starburst run Spark and Trino).
const ADAPTERS: Record<string, InferDialect> = {
	duckdb: 'duckdb',
	motherduck: 'duckdb',
	postgres: 'postgres',
	alloydb: 'postgres',
	cockroachdb: 'postgres',
	risingwave: 'postgres',
	materialize: 'materialize',
	redshift: 'redshift',
	snowflake: 'snowflake',
	bigquery: 'bigquery',
	databricks: 'databricks',
	spark: 'spark',
	glue: 'spark',
	trino: 'trino',
	starburst: 'trino',
	presto: 'trino',
	athena: 'athena',
	sqlserver: 'tsql',
	synapse: 'tsql',
	fabric: 'fabric',
	mysql: 'mysql',
	singlestore: 'mysql',
	clickhouse: 'clickhouse',
	oracle: 'oracle',
	sqlite: 'sqlite',
	teradata: 'teradata',
	hive: 'hive',
	impala: 'hive',
	dremio: 'dremio',
	exasol: 'exasol'
};

/** The dialect for a manifest's `metadata.adapter_type`; an unknown adapter reads as generic SQL, with a warning. */
export function dialectOf(adapterType: string | null | undefined): { dialect: InferDialect; warning: string | null } {
	const key = (adapterType ?? '').toLowerCase();
	const dialect = ADAPTERS[key];
	if (dialect) return { dialect, warning: null };
	return {
		dialect: 'generic',
		warning: `adapter ${adapterType ? `"${adapterType}"` : '(none in the manifest)'} has no SQL dialect of its own here: its compiled SQL is read as generic SQL`
	};
}

