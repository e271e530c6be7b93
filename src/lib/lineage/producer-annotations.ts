// Annotations in a producer script's comments (DESIGN.md §8):
//   -- materialize ducklake://main/report
//   -- column total <- dbt://main/analytics/orders.amount, dbt://main/analytics/orders.tax
// Pure and browser-safe: the deploy and a live preview in the editor run the same code, so what
// the page shows while typing is what the server stores.

import { sqlComments } from './sql-comments';

export type ProducerAssetKind = 'dbt' | 'ducklake';

export interface AssetRef {
	kind: ProducerAssetKind;
	/** The part of the URI after `://`. */
	path: string;
}

export interface ColumnRef extends AssetRef {
	column: string;
}

export interface ColumnAnnotation {
	column: string;
	inputs: ColumnRef[];
	/** 1-based line of the (first) annotation of this column. */
	line: number;
}

export interface ProducerAnnotations {
	/** What the script writes: a table, or (`ducklake` / `ducklake://main`) only the lake. */
	materialize: (AssetRef & { line: number }) | null;
	columns: ColumnAnnotation[];
	warnings: string[];
}

/** The default lake: a bare `ducklake` names it, and table references resolve into it. */
export const DEFAULT_LAKE = 'main';

const SCHEMES: Record<string, ProducerAssetKind> = { dbt: 'dbt', ducklake: 'ducklake' };
const QUOTES = /["`]/g;
// A path segment: anything but the separator, whitespace and quotes (those are stripped first).
const SEGMENT = /^[^/\s]+$/;

export function assetUri(a: AssetRef): string {
	return `${a.kind}://${a.path}`;
}

export function columnUri(c: ColumnRef): string {
	return `${assetUri(c)}.${/[.,\s"]/.test(c.column) ? `"${c.column.replace(/"/g, '""')}"` : c.column}`;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * `dbt://<warehouse>/<schema>/<name>` or `ducklake://<lake>/<table>` (or, when `lakeOnly` is
 * allowed, `ducklake://<lake>` and the bare word `ducklake`). Quote characters are stripped and
 * schema, name and table are lowercased, as DESIGN.md §3 does for relations, so an annotation
 * names the same asset as the ingest and the SQL inference; the warehouse and lake names are
 * kept as written.
 */
export function parseAssetUri(text: string, opts: { lakeOnly?: boolean } = {}): Parsed<AssetRef> {
	const s = text.trim();
	if (opts.lakeOnly && s.toLowerCase() === 'ducklake') return { ok: true, value: { kind: 'ducklake', path: DEFAULT_LAKE } };
	const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(s);
	if (!m) return { ok: false, reason: 'not an asset URI (expected dbt://… or ducklake://…)' };
	const kind = SCHEMES[m[1].toLowerCase()];
	if (!kind) return { ok: false, reason: `unknown scheme "${m[1]}" (expected dbt:// or ducklake://)` };
	const segs = m[2].split('/').map((p) => p.replace(QUOTES, '').trim());
	if (!segs.every((p) => SEGMENT.test(p))) return { ok: false, reason: 'an empty or malformed path segment' };
	if (kind === 'dbt') {
		if (segs.length !== 3) return { ok: false, reason: 'a dbt asset is dbt://<warehouse>/<schema>/<name>' };
		return { ok: true, value: { kind, path: [segs[0], segs[1].toLowerCase(), segs[2].toLowerCase()].join('/') } };
	}
	if (segs.length === 1 && opts.lakeOnly) return { ok: true, value: { kind, path: segs[0] } };
	if (segs.length !== 2) return { ok: false, reason: 'a lake table is ducklake://<lake>/<table>' };
	return { ok: true, value: { kind, path: `${segs[0]}/${segs[1].toLowerCase()}` } };
}

/**
 * `<asset URI>.<column>`: the column is what follows the LAST `.` (so `analytics.v2` stays one
 * schema), or a double-quoted name at the end (which may itself hold dots: `."unit.price"`).
 */
export function parseColumnRef(text: string): Parsed<ColumnRef> {
	const s = text.trim();
	let column: string;
	let assetText: string;
	if (s.endsWith('"')) {
		const q = closingQuoteStart(s);
		if (q === null || s[q - 1] !== '.') return { ok: false, reason: 'a quoted column must follow the last "."' };
		column = s.slice(q + 1, -1).replace(/""/g, '"');
		assetText = s.slice(0, q - 1);
	} else {
		const dot = s.lastIndexOf('.');
		if (dot < 0) return { ok: false, reason: 'no column (expected <asset URI>.<column>)' };
		column = s.slice(dot + 1).trim();
		assetText = s.slice(0, dot);
		if (/["`]/.test(column)) return { ok: false, reason: 'an unbalanced quote in the column name' };
	}
	if (column === '') return { ok: false, reason: 'an empty column name' };
	if (column.includes('/')) return { ok: false, reason: 'no column (expected <asset URI>.<column>)' };
	const asset = parseAssetUri(assetText);
	if (!asset.ok) return asset;
	return { ok: true, value: { ...asset.value, column } };
}

/** Where the quoted name ending `s` opens (a doubled quote inside is one literal quote), or null. */
function closingQuoteStart(s: string): number | null {
	let i = s.length - 2;
	while (i >= 0) {
		if (s[i] !== '"') {
			i--;
			continue;
		}
		if (i > 0 && s[i - 1] === '"') {
			i -= 2;
			continue;
		}
		return i;
	}
	return null;
}

/** Splits on commas outside double quotes. */
function splitList(s: string): string[] {
	const out: string[] = [];
	let cur = '';
	let inQuote = false;
	for (const c of s) {
		if (c === '"') inQuote = !inQuote;
		if (c === ',' && !inQuote) {
			out.push(cur);
			cur = '';
		} else cur += c;
	}
	out.push(cur);
	return out;
}

function unquoteName(s: string): string | null {
	const t = s.trim();
	if (t.startsWith('"')) {
		if (t.length < 2 || !t.endsWith('"')) return null;
		const inner = t.slice(1, -1);
		if (/(^|[^"])"([^"]|$)/.test(inner.replace(/""/g, ''))) return null;
		return inner.replace(/""/g, '"');
	}
	return /^[^\s"]+$/.test(t) ? t : null;
}

// A comment line: `--` or `//`, then the keyword. Only whole-line comments are annotations, so a
// `--` inside a string or after code is never read as one.
const LINE = /^\s*(?:--|\/\/)\s*(materialize|column)(?:\s+(.*))?$/i;

export function parseProducerAnnotations(sql: string): ProducerAnnotations {
	const warnings: string[] = [];
	let materialize: ProducerAnnotations['materialize'] = null;
	const byColumn = new Map<string, ColumnAnnotation>();
	const lineOf = lineNumbers(sql);
	// Only comments on a line of their own: not `--` inside a string or after code, and not a
	// line inside a block comment (an annotation commented out that way stays out).
	for (const comment of sqlComments(sql)) {
		if (comment.kind !== 'line' || !comment.ownLine) continue;
		// trimEnd: a CRLF file leaves `\r` before the newline, which `.` would not match.
		const line = sql.slice(comment.start, comment.end).trimEnd();
		const lineNo = lineOf(comment.start);
		const m = LINE.exec(line);
		if (!m) continue;
		const keyword = m[1].toLowerCase();
		const rest = (m[2] ?? '').trim();
		if (keyword === 'materialize') {
			const target = rest.split(/\s+/)[0] ?? '';
			// Prose such as "-- materialize the report daily" is not an annotation.
			if (!target.includes('://') && target.toLowerCase() !== 'ducklake') continue;
			const a = parseAssetUri(target, { lakeOnly: true });
			if (!a.ok) {
				warnings.push(`line ${lineNo}: materialize "${target}" ignored: ${a.reason}`);
				continue;
			}
			if (materialize && (materialize.kind !== a.value.kind || materialize.path !== a.value.path)) {
				warnings.push(
					`line ${lineNo}: a second materialize (${assetUri(a.value)}) ignored: line ${materialize.line} already names ${assetUri(materialize)}`
				);
				continue;
			}
			if (!materialize) materialize = { ...a.value, line: lineNo };
			continue;
		}
		const arrow = rest.indexOf('<-');
		if (arrow < 0) {
			// "-- column names are lowercase" is prose; a line naming an asset is a broken annotation.
			if (rest.includes('://')) warnings.push(`line ${lineNo}: column annotation without "<-" ignored`);
			continue;
		}
		const column = unquoteName(rest.slice(0, arrow));
		if (column === null || column === '') {
			warnings.push(`line ${lineNo}: column annotation ignored: "${rest.slice(0, arrow).trim()}" is not one column name`);
			continue;
		}
		const inputs: ColumnRef[] = [];
		for (const part of splitList(rest.slice(arrow + 2))) {
			if (part.trim() === '') {
				warnings.push(`line ${lineNo}: an empty input in the column annotation of ${column} dropped`);
				continue;
			}
			const r = parseColumnRef(part);
			if (!r.ok) {
				warnings.push(`line ${lineNo}: input "${part.trim()}" of column ${column} dropped: ${r.reason}`);
				continue;
			}
			inputs.push(r.value);
		}
		if (inputs.length === 0) {
			warnings.push(`line ${lineNo}: column annotation of ${column} dropped: no valid input`);
			continue;
		}
		const prev = byColumn.get(column);
		if (prev) {
			warnings.push(`line ${lineNo}: column ${column} is annotated again (first on line ${prev.line}); the inputs are merged`);
			prev.inputs.push(...inputs);
		} else byColumn.set(column, { column, inputs, line: lineNo });
	}
	const columns = [...byColumn.values()].map((c) => ({ ...c, inputs: dedupe(c.inputs) }));
	return { materialize, columns, warnings };
}

/** 1-based line of an offset; offsets are asked in increasing order, so one forward scan suffices. */
function lineNumbers(text: string): (offset: number) => number {
	let line = 1;
	let at = 0;
	return (offset: number) => {
		for (let k = text.indexOf('\n', at); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) {
			line++;
			at = k + 1;
		}
		return line;
	};
}

function dedupe(refs: ColumnRef[]): ColumnRef[] {
	const seen = new Set<string>();
	return refs.filter((r) => {
		const k = `${r.kind}\u0000${r.path}\u0000${r.column}`;
		if (seen.has(k)) return false;
		seen.add(k);
		return true;
	});
}
