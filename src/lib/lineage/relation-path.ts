// Relation → asset path (DESIGN.md §3). The ONE derivation used by the manifest ingest, the live
// progress reader and the end-of-run settlement: if two of them disagreed, a run's progress would
// land on a path no node has. Pure, so the browser can use it too.

/** The longest asset path the `asset_path` columns accept. */
export const MAX_ASSET_PATH_LENGTH = 255;

const QUOTE_CHARS = /["`[\]]/g;

export interface RelationParts {
	database?: string | null;
	schema?: string | null;
	name: string;
}

/** The warehouse a relation lives in: its NAME starts the asset path; its default database decides qualification. */
export interface WarehouseTarget {
	name: string;
	defaultDatabase?: string | null;
}

export interface RelationNode {
	database?: string | null;
	schema?: string | null;
	identifier?: string | null;
	alias?: string | null;
	name: string;
	resource_type: string;
}

/**
 * Split `"db"."schema"."name"` (or backtick / bracket quoted, or bare) into its identifiers.
 *
 * Only a separator OUTSIDE quotes splits: `"analytics.v2"` is one identifier. A doubled closing
 * delimiter inside quotes is one literal character (`"a""b"` is `a"b`), because that is how these
 * dialects escape it; treating it as the end would rename the relation. Whitespace around an
 * unquoted identifier is not part of it. Returns null for input that is not a relation name: empty,
 * an unterminated quote, an empty identifier (`a..b`), or text after a closing quote (`"a"b`).
 */
export function splitRelationName(s: string): string[] | null {
	const parts: string[] = [];
	let current = '';
	// Whether the current identifier was quoted: a quoted identifier may be anything, even empty-looking
	// whitespace, while an unquoted one is trimmed and must not be empty.
	let quoted = false;
	let i = 0;
	const finish = (): boolean => {
		const value = quoted ? current : current.trim();
		if (!quoted && value === '') return false;
		parts.push(value);
		current = '';
		quoted = false;
		return true;
	};
	while (i < s.length) {
		const c = s[i];
		if (c === '"' || c === '`' || c === '[') {
			if (current.trim() !== '' || quoted) return null;
			const close = c === '[' ? ']' : c;
			let j = i + 1;
			let value = '';
			let terminated = false;
			while (j < s.length) {
				if (s[j] === close) {
					if (s[j + 1] === close) {
						value += close;
						j += 2;
						continue;
					}
					terminated = true;
					break;
				}
				value += s[j];
				j++;
			}
			if (!terminated) return null;
			current = value;
			quoted = true;
			i = j + 1;
			continue;
		}
		if (c === '.') {
			if (!finish()) return null;
			i++;
			continue;
		}
		if (quoted) {
			// Only whitespace may follow a closing quote before the separator.
			if (c.trim() !== '') return null;
			i++;
			continue;
		}
		current += c;
		i++;
	}
	if (!finish()) return null;
	// BigQuery also accepts a whole path inside ONE pair of backticks (`project.dataset.table`).
	if (parts.length === 1 && s.trim().startsWith('`') && parts[0].includes('.')) {
		const inner = parts[0].split('.');
		if (inner.every((p) => p !== '')) return inner;
	}
	return parts;
}

function clean(s: string): string {
	return s.replace(QUOTE_CHARS, '').toLowerCase();
}

/**
 * `<warehouse>/<schema>/<name>` (the part of `dbt://…` after the scheme), with the schema written
 * `<database>.<schema>` when the relation's database differs
 * (case-insensitively) from the warehouse's default database. When the default is unknown, every
 * relation that names a database is qualified, so two warehouses' `public.orders` never merge.
 *
 * Quote characters are stripped and every part lowercased (the database too: it is compared
 * case-insensitively, so keeping its case would split one relation into two assets). Null when a
 * part holds `/` (it would read as a path separator), a part is empty, or the path is over
 * {@link MAX_ASSET_PATH_LENGTH} characters. The warehouse name is kept as written.
 */
export function relationAssetPath(rel: RelationParts, warehouse: WarehouseTarget): string | null {
	const defaultDatabase = warehouse.defaultDatabase;
	const schema = clean(rel.schema ?? '');
	const name = clean(rel.name ?? '');
	const database = clean(rel.database ?? '');
	if (schema === '' || name === '') return null;
	if (schema.includes('/') || name.includes('/') || database.includes('/')) return null;
	const fallback = clean(defaultDatabase ?? '');
	const qualified = database !== '' && (fallback === '' || database !== fallback);
	const path = `${warehouse.name}/${qualified ? `${database}.` : ''}${schema}/${name}`;
	return path.length > MAX_ASSET_PATH_LENGTH ? null : path;
}

/**
 * The asset path of a manifest node's relation: `identifier` for sources (the table a source
 * names), else `alias` (what a model is built as), else `name`. Whether the node HAS a relation
 * (tests and ephemeral models do not) is the caller's decision.
 */
export function nodeAssetPath(node: RelationNode, warehouse: WarehouseTarget): string | null {
	const relationName =
		(node.resource_type === 'source' ? nonEmpty(node.identifier) : null) ?? nonEmpty(node.alias) ?? node.name;
	return relationAssetPath({ database: node.database, schema: node.schema, name: relationName }, warehouse);
}

/** The asset path of a `relation_name` string from run_results.json or a JSON log event. */
export function relationNameAssetPath(relationName: string, warehouse: WarehouseTarget): string | null {
	const parts = splitRelationName(relationName);
	if (!parts) return null;
	if (parts.length === 3) return relationAssetPath({ database: parts[0], schema: parts[1], name: parts[2] }, warehouse);
	if (parts.length === 2) return relationAssetPath({ schema: parts[0], name: parts[1] }, warehouse);
	return null;
}

function nonEmpty(s: string | null | undefined): string | null {
	return typeof s === 'string' && s !== '' ? s : null;
}
