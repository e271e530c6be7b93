// A manifest's exposures, semantic models, metrics and saved queries → Consumer entries, each
// mapped down to the relation columns it reads. Pure: the SQL parser is handed in (`exprReads`),
// because it is a WASM module the manifest thread must not load for a bare column name.
import type { Consumer, ConsumerColumn, ConsumerType, SemanticField } from '$lib/types/consumers';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const SECTIONS: [string, ConsumerType][] = [
	['semantic_models', 'semantic_model'],
	['metrics', 'metric'],
	['saved_queries', 'saved_query'],
	['exposures', 'exposure']
];

/** A bare (optionally quoted) column name: read without the parser. */
const BARE = /^\s*"?([A-Za-z_][A-Za-z0-9_$]*)"?\s*$/;

/**
 * The consumer entries of a manifest document, as written: `fields[].reads` holds bare column
 * names only (an `expr` that needs the parser is resolved by resolveConsumers). `exists` says
 * whether a unique_id is an entry of the manifest (node, source or consumer).
 */
export function extractConsumers(doc: Json, exists: (id: string) => boolean): Consumer[] {
	const out: Consumer[] = [];
	for (const [section, type] of SECTIONS) {
		const entries = doc[section];
		if (!isObject(entries)) continue;
		for (const [id, raw] of Object.entries(entries)) {
			if (!isObject(raw)) continue;
			const name = str(raw.name) ?? id.split('.').at(-1) ?? id;
			const dependsOn = isObject(raw.depends_on) ? strings(raw.depends_on.nodes) : [];
			const c: Consumer = {
				unique_id: id,
				type,
				name,
				label: str(raw.label),
				description: str(raw.description),
				depends_on: [...new Set(dependsOn)].sort()
			};
			const warnings: string[] = [];
			const missing = c.depends_on.filter((d) => !exists(d));
			for (const m of missing) warnings.push(`${type.replace('_', ' ')} \`${name}\` depends on \`${m}\`, which is not in the manifest`);
			c.depends_on = c.depends_on.filter((d) => exists(d));
			if (type === 'exposure') exposureFields(c, raw);
			else if (type === 'semantic_model') semanticFields(c, raw);
			else if (type === 'metric') metricFields(c, raw);
			else savedQueryFields(c, raw);
			if (warnings.length) c.warnings = warnings;
			out.push(c);
		}
	}
	out.sort((a, b) => (a.unique_id < b.unique_id ? -1 : a.unique_id > b.unique_id ? 1 : 0));
	return out;
}

function exposureFields(c: Consumer, raw: Json): void {
	const owner = isObject(raw.owner) ? raw.owner : null;
	c.owner = owner ? { name: str(owner.name), email: str(owner.email) } : null;
	c.url = str(raw.url);
	c.maturity = str(raw.maturity);
	c.exposure_type = str(raw.type);
}

function semanticFields(c: Consumer, raw: Json): void {
	c.model = c.depends_on.find((d) => d.startsWith('model.') || d.startsWith('seed.') || d.startsWith('snapshot.')) ?? null;
	const fields: SemanticField[] = [];
	const add = (list: unknown, role: SemanticField['role']) => {
		if (!Array.isArray(list)) return;
		for (const f of list) {
			if (!isObject(f)) continue;
			const name = str(f.name);
			if (!name) continue;
			const expr = typeof f.expr === 'string' ? f.expr : f.expr == null ? null : String(f.expr);
			const bare = BARE.exec(expr ?? name);
			const field: SemanticField = { name, role, expr, reads: bare ? [bare[1].toLowerCase()] : [] };
			if (role === 'measure') field.agg = str(f.agg);
			fields.push(field);
		}
	};
	add(raw.entities, 'entity');
	add(raw.dimensions, 'dimension');
	add(raw.measures, 'measure');
	c.fields = fields;
}

const refName = (v: unknown): string | null => (isObject(v) ? str(v.name) : str(v));

function metricFields(c: Consumer, raw: Json): void {
	const tp = isObject(raw.type_params) ? raw.type_params : {};
	const type = str(raw.type);
	c.metric_type = type;
	const def: Record<string, unknown> = {};
	const measureNames = new Set<string>();
	const metricNames = new Set<string>();
	const measure = refName(tp.measure);
	if (measure) measureNames.add(measure);
	if (type === 'ratio') {
		const num = refName(tp.numerator);
		const den = refName(tp.denominator);
		def.numerator = num;
		def.denominator = den;
		if (num) metricNames.add(num);
		if (den) metricNames.add(den);
	}
	if (Array.isArray(tp.metrics)) for (const m of tp.metrics) if (refName(m)) metricNames.add(refName(m)!);
	const cum = isObject(tp.cumulative_type_params) ? tp.cumulative_type_params : null;
	if (cum) {
		if (refName(cum.metric)) metricNames.add(refName(cum.metric)!);
		def.window = cum.window ?? tp.window ?? null;
		def.grain_to_date = cum.grain_to_date ?? tp.grain_to_date ?? null;
	} else if (type === 'cumulative') {
		def.window = tp.window ?? null;
		def.grain_to_date = tp.grain_to_date ?? null;
	}
	const conv = isObject(tp.conversion_type_params) ? tp.conversion_type_params : null;
	if (conv) {
		for (const k of ['base_measure', 'conversion_measure']) if (refName(conv[k])) measureNames.add(refName(conv[k])!);
		def.entity = str(conv.entity);
		def.window = conv.window ?? null;
	}
	// dbt 1.12 inlines a simple metric's aggregation: its semantic model, agg and expr (the
	// metric's own name when absent) stand where a measure did.
	const agg = isObject(tp.metric_aggregation_params) ? tp.metric_aggregation_params : null;
	if (agg && str(agg.semantic_model)) {
		def.semantic_model = str(agg.semantic_model);
		def.agg = str(agg.agg);
	}
	if (typeof tp.expr === 'string') def.expr = tp.expr;
	if (measure) def.measure = measure;
	// The metric's own filter and its measure's input filter both narrow what it counts.
	const filters = [filterText(raw.filter), filterText(isObject(tp.measure) ? tp.measure.filter : null)].filter((f): f is string => !!f);
	if (filters.length) def.filter = filters.join(' and ');
	c.definition = def;
	c.measures = [...measureNames].map((name) => ({ semantic_model: '', name }));
	c.metrics = [...metricNames];
}

function filterText(f: unknown): string | null {
	if (!isObject(f)) return null;
	if (typeof f.where_sql_template === 'string') return f.where_sql_template.trim();
	const parts = Array.isArray(f.where_filters)
		? f.where_filters.map((w) => (isObject(w) ? str(w.where_sql_template)?.trim() : null)).filter((s): s is string => !!s)
		: [];
	return parts.length ? parts.join(' and ') : null;
}

function savedQueryFields(c: Consumer, raw: Json): void {
	const q = isObject(raw.query_params) ? raw.query_params : {};
	c.metrics = strings(q.metrics);
	c.group_by = strings(q.group_by);
	const where = isObject(q.where) ? filterText(q.where) : null;
	c.definition = where ? { where } : {};
}

/** What an `expr` reads of one relation: its column names, or why it could not be read. */
export type ExprReads = (expr: string) => { reads: string[] } | { error: string };

/** The exprs resolveConsumers will hand to the parser (none when every expr is a bare name). */
export function exprsToParse(consumers: readonly Consumer[]): string[] {
	const out = new Set<string>();
	for (const c of consumers) {
		for (const f of c.fields ?? []) if (f.expr !== null && !BARE.test(f.expr)) out.add(f.expr);
		const e = c.definition?.expr;
		if (c.type === 'metric' && c.definition?.semantic_model && typeof e === 'string' && !BARE.test(e)) out.add(e);
	}
	return [...out];
}

/**
 * Resolves, in place: each field's `expr` to the model columns it reads, each metric's measures
 * to their semantic models, and every metric and saved query down to relation columns. What does
 * not resolve becomes a warning on the entry (and in the list returned), never an error.
 */
export function resolveConsumers(consumers: Consumer[], exprReads: ExprReads): string[] {
	const warnings: string[] = [];
	const warn = (c: Consumer, w: string) => {
		(c.warnings ??= []).push(w);
	};
	const readExpr = (expr: string): { reads: string[] } | { error: string } => {
		const bare = BARE.exec(expr);
		return bare ? { reads: [bare[1].toLowerCase()] } : exprReads(expr);
	};
	const semanticByName = new Map<string, Consumer>();
	const measureOwner = new Map<string, { sm: Consumer; field: SemanticField }>();
	const metricByName = new Map<string, Consumer>();
	for (const c of consumers) {
		if (c.type === 'semantic_model') {
			semanticByName.set(c.name, c);
			for (const f of c.fields ?? []) {
				if (f.expr !== null && !BARE.test(f.expr)) {
					const r = exprReads(f.expr);
					if ('error' in r) {
						f.reads = [];
						warn(c, `semantic model \`${c.name}\`: the expr of ${f.role} \`${f.name}\` does not parse (${r.error}); it reads no column`);
					} else f.reads = r.reads;
				}
				if (f.role === 'measure') measureOwner.set(f.name, { sm: c, field: f });
			}
		} else if (c.type === 'metric') metricByName.set(c.name, c);
	}

	// Metrics, depth first (derived over derived); a cycle (a hand-edited file) stops at itself.
	const done = new Map<string, ConsumerColumn[]>();
	const columnsOf = (m: Consumer, visiting: Set<string>): ConsumerColumn[] => {
		const hit = done.get(m.unique_id);
		if (hit) return hit;
		if (visiting.has(m.unique_id)) return [];
		visiting.add(m.unique_id);
		const cols = new Map<string, ConsumerColumn>();
		const put = (node: string, column: string) => cols.set(`${node}\u0000${column}`, { node, column });
		for (const ms of m.measures ?? []) {
			const owner = measureOwner.get(ms.name);
			if (!owner) {
				warn(m, `metric \`${m.name}\` refers to measure \`${ms.name}\`, which no semantic model defines`);
				continue;
			}
			ms.semantic_model = owner.sm.unique_id;
			if (owner.sm.model) for (const col of owner.field.reads) put(owner.sm.model, col);
		}
		const smName = m.definition?.semantic_model;
		if (typeof smName === 'string') {
			const sm = semanticByName.get(smName);
			if (!sm) warn(m, `metric \`${m.name}\` aggregates semantic model \`${smName}\`, which the manifest does not define`);
			else if (sm.model) {
				const expr = typeof m.definition?.expr === 'string' ? m.definition.expr : m.name;
				const r = readExpr(expr);
				if ('error' in r) warn(m, `metric \`${m.name}\`: its expr does not parse (${r.error}); it reads no column`);
				else for (const col of r.reads) put(sm.model, col);
			}
		}
		for (const name of m.metrics ?? []) {
			const input = metricByName.get(name);
			if (!input) {
				warn(m, `metric \`${m.name}\` refers to metric \`${name}\`, which the manifest does not define`);
				continue;
			}
			for (const col of columnsOf(input, visiting)) put(col.node, col.column);
		}
		visiting.delete(m.unique_id);
		const list = [...cols.values()].sort((a, b) => (a.node + '\u0000' + a.column < b.node + '\u0000' + b.column ? -1 : 1));
		done.set(m.unique_id, list);
		return list;
	};
	for (const c of consumers) if (c.type === 'metric') c.columns = columnsOf(c, new Set());
	for (const c of consumers) {
		if (c.type !== 'saved_query') continue;
		const cols = new Map<string, ConsumerColumn>();
		for (const name of c.metrics ?? []) {
			const m = metricByName.get(name);
			if (!m) {
				warn(c, `saved query \`${c.name}\` queries metric \`${name}\`, which the manifest does not define`);
				continue;
			}
			for (const col of m.columns ?? []) cols.set(`${col.node}\u0000${col.column}`, col);
		}
		c.columns = [...cols.values()];
	}
	for (const c of consumers) for (const w of c.warnings ?? []) warnings.push(w);
	return warnings;
}
