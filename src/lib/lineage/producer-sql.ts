// How a producer script's table names become assets (DESIGN.md §8), pure so the browser can run
// it: what earlier statements (ATTACH, USE) said about names, and the relation paths of §3. The
// statements themselves are read by the SQL-lineage engine (src/lib/lineage/sql-lineage/).
import { DEFAULT_LAKE, type AssetRef } from './producer-annotations';
import { MAX_ASSET_PATH_LENGTH, relationAssetPath, type WarehouseTarget } from './relation-path';
import type { StatementHead } from './sql-lineage/text';

/** What earlier statements of the script said about names: attached lakes, USE. */
export interface NameContext {
	warehouse: WarehouseTarget;
	/** Lowercased aliases of attached DuckLake catalogs (`ATTACH 'ducklake:…' AS lake`). */
	lakes: Set<string>;
	/** Lowercased aliases of other attached databases: not assets. */
	otherCatalogs: Set<string>;
	/** The catalog a `USE` made the default, lowercased. */
	defaultCatalog: string | null;
}

export function newNameContext(warehouse: WarehouseTarget): NameContext {
	return { warehouse, lakes: new Set(), otherCatalogs: new Set(), defaultCatalog: null };
}

export type ResolvedName = { ok: true; asset: AssetRef } | { ok: false; reason: string };

const stripQuotes = (s: string) => s.replace(/["`[\]]/g, '');

function lakeTable(name: string): ResolvedName {
	const table = stripQuotes(name).toLowerCase();
	if (table === '' || table.includes('/')) return { ok: false, reason: 'not a valid lake table name' };
	const path = `${DEFAULT_LAKE}/${table}`;
	if (path.length > MAX_ASSET_PATH_LENGTH) return { ok: false, reason: 'the name is too long for an asset path' };
	return { ok: true, asset: { kind: 'ducklake', path } };
}

/**
 * DESIGN.md §8: `schema.name` and `database.schema.name` are the dbt relation of the default
 * warehouse (qualified exactly as §3 does, through relationAssetPath); a table of an attached
 * DuckLake catalog (or under the bare `ducklake.` prefix) is `ducklake://main/<table>`; anything
 * else resolves to nothing, and the caller warns.
 */
export function resolveTableName(parts: string[], ctx: NameContext): ResolvedName {
	const lower = parts.map((p) => stripQuotes(p).toLowerCase());
	const isLake = (s: string) => s === 'ducklake' || ctx.lakes.has(s);
	if (parts.length === 1) {
		if (ctx.defaultCatalog !== null && isLake(ctx.defaultCatalog)) return lakeTable(parts[0]);
		return { ok: false, reason: 'a table without a schema is neither a dbt relation nor a lake table' };
	}
	if (parts.length === 2) {
		if (isLake(lower[0])) return lakeTable(parts[1]);
		if (ctx.otherCatalogs.has(lower[0])) return { ok: false, reason: `"${parts[0]}" is an attached database, not a lake or the warehouse` };
		const path = relationAssetPath({ schema: parts[0], name: parts[1] }, ctx.warehouse);
		return path ? { ok: true, asset: { kind: 'dbt', path } } : { ok: false, reason: 'not a valid relation name' };
	}
	if (parts.length === 3) {
		if (isLake(lower[0])) {
			if (lower[1] !== 'main') return { ok: false, reason: `lake schema "${parts[1]}" is not main` };
			return lakeTable(parts[2]);
		}
		if (ctx.otherCatalogs.has(lower[0])) return { ok: false, reason: `"${parts[0]}" is an attached database, not a lake or the warehouse` };
		const path = relationAssetPath({ database: parts[0], schema: parts[1], name: parts[2] }, ctx.warehouse);
		return path ? { ok: true, asset: { kind: 'dbt', path } } : { ok: false, reason: 'not a valid relation name' };
	}
	return { ok: false, reason: 'too many name parts' };
}

/** Applies what an ATTACH or USE statement changes about name resolution. */
export function applyToContext(head: StatementHead, ctx: NameContext): void {
	if (head.kind === 'attach') {
		const alias = stripQuotes(head.alias).toLowerCase();
		if (head.lake) ctx.lakes.add(alias);
		else ctx.otherCatalogs.add(alias);
	} else if (head.kind === 'use') {
		ctx.defaultCatalog = stripQuotes(head.parts[0]).toLowerCase();
	}
}

