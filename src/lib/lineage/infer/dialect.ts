import type { InferDialect } from './types';

const ADAPTERS: Record<string, InferDialect> = {
	duckdb: 'duckdb',
	motherduck: 'duckdb',
	postgres: 'postgres',
	redshift: 'redshift',
	snowflake: 'snowflake',
	bigquery: 'bigquery',
	databricks: 'databricks',
	spark: 'spark'
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

/** The polyglot-sql dialect name of each of ours. */
export const POLYGLOT_DIALECT: Record<InferDialect, string> = {
	duckdb: 'duckdb',
	postgres: 'postgresql',
	redshift: 'redshift',
	snowflake: 'snowflake',
	bigquery: 'bigquery',
	databricks: 'databricks',
	spark: 'spark',
	generic: 'generic'
};
