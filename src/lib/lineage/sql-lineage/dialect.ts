// The parser's name for each of the engine's dialects, and how each quotes an identifier.
// polyglot-sql's `parse(sql, dialect)` takes the dialect's name and nothing else: the dialect
// decides the grammar (keywords, quoting, functions), not how names fold or resolve: how an
// identifier folds is `foldIdentifier` below, what it resolves to the caller's resolver's business.
import type { SqlDialect } from './types';

/** The polyglot-sql dialect name of each of ours. */
export const POLYGLOT_DIALECT: Record<SqlDialect, string> = {
	duckdb: 'duckdb',
	postgres: 'postgresql',
	redshift: 'redshift',
	snowflake: 'snowflake',
	bigquery: 'bigquery',
	databricks: 'databricks',
	spark: 'spark',
	trino: 'trino',
	athena: 'athena',
	tsql: 'tsql',
	fabric: 'fabric',
	mysql: 'mysql',
	clickhouse: 'clickhouse',
	oracle: 'oracle',
	sqlite: 'sqlite',
	teradata: 'teradata',
	hive: 'hive',
	materialize: 'materialize',
	dremio: 'dremio',
	exasol: 'exasol',
	generic: 'generic'
};

/** How the dialect quotes an identifier (a word the parser refused is quoted and parsed again). */
export function quoteIdentifier(dialect: SqlDialect, word: string): string {
	switch (dialect) {
		case 'bigquery':
		case 'databricks':
		case 'spark':
		case 'hive':
		case 'mysql':
		case 'clickhouse':
			return `\`${word}\``;
		case 'tsql':
		case 'fabric':
			return `[${word}]`;
		default:
			return `"${word}"`;
	}
}

/**
 * The name an identifier gives the column it names, as the warehouse stores it: Snowflake folds
 * unquoted names to upper case; Postgres and its kin to lower case; Redshift (by default) and
 * Trino fold quoted names too; the others keep the case as written (BigQuery, DuckDB, Spark and
 * Databricks match columns case-insensitively, but show the name as written).
 */
export function foldIdentifier(dialect: SqlDialect | undefined, name: string, quoted: boolean): string {
	switch (dialect) {
		case 'snowflake':
			return quoted ? name : name.toUpperCase();
		case 'postgres':
		case 'materialize':
			return quoted ? name : name.toLowerCase();
		case 'redshift':
		case 'trino':
		case 'athena':
			return name.toLowerCase();
		default:
			return name;
	}
}
