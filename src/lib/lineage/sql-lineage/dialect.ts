// The parser's name for each of the engine's dialects, and how each quotes an identifier.
// polyglot-sql's `parse(sql, dialect)` takes the dialect's name and nothing else: the dialect
// decides the grammar (keywords, quoting, functions), not how names fold or resolve, which is the
// walker's (case-insensitive) and the caller's resolver's business.
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
