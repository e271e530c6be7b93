// A canvas page's deep link: `?select=<node id>&column=<column>` read from and written to a URL,
// and a `column=` found among a trace's columns. The values are whatever was typed or pasted
// into an address bar, so they are only ever compared for equality with what the graph holds:
// never parsed, never put into markup or selectors.
import { assetNodeId } from './canvas-model';
import type { ColumnId, ColumnNode } from './column-trace';

export interface DeepLink {
	/** A canvas node id (`dbt:main/analytics/orders`, `script:f/x/report`), or null. */
	select: string | null;
	/** A column of the traced asset (see columnParam), or null. Only with a selection. */
	column: string | null;
}

export const NO_LINK: DeepLink = { select: null, column: null };

// An empty value is no value: `?select=` is what a form or a hand-edited URL leaves behind.
const valueOf = (q: URLSearchParams, name: string) => {
	const v = q.get(name);
	return v === null || v === '' ? null : v;
};

/** The link a URL's query asks for (the first of repeated parameters, as URLSearchParams.get). */
export function readDeepLink(q: URLSearchParams): DeepLink {
	return { select: valueOf(q, 'select'), column: valueOf(q, 'column') };
}

export const sameDeepLink = (a: DeepLink, b: DeepLink) => a.select === b.select && a.column === b.column;

/**
 * `url` saying `link` instead, every other parameter (a share link's `view_token`) and the hash
 * kept; null when it already says so. Values are compared decoded, so a link typed with `%20`
 * where URLSearchParams writes `+` is not rewritten.
 */
export function withDeepLink(url: URL, link: DeepLink): URL | null {
	const want: DeepLink = { select: link.select, column: link.select === null ? null : link.column };
	if (sameDeepLink(readDeepLink(url.searchParams), want)) return null;
	const next = new URL(url);
	for (const [name, value] of [
		['select', want.select],
		['column', want.column]
	] as const) {
		if (value === null) next.searchParams.delete(name);
		else next.searchParams.set(name, value);
	}
	return next;
}

/**
 * How a traced column is named in `column=`: by its name for a column of the selected asset,
 * and `<node id of its asset>.<column>` for a column further up or down the trace.
 */
export function columnParam(selected: { kind: string; path: string }, c: ColumnNode): string {
	return c.kind === selected.kind && c.path === selected.path ? c.column : `${assetNodeId(c.kind, c.path)}.${c.column}`;
}

/**
 * The trace column a `column=` names, or null. A column of the selected asset wins over a
 * qualified name of another asset that happens to read the same, so the short form is stable.
 */
export function resolveColumn(param: string, selected: { kind: string; path: string }, columns: Iterable<readonly [ColumnId, ColumnNode]>): ColumnId | null {
	let other: ColumnId | null = null;
	for (const [id, c] of columns) {
		if (columnParam(selected, c) !== param) continue;
		if (c.kind === selected.kind && c.path === selected.path) return id;
		other ??= id;
	}
	return other;
}
