// Where a column trace ends in the consumer layer: the semantic-model fields, metrics, saved
// queries and exposures that read any of a set of relation columns (a traced column and its
// downstream), and everything built on them. Pure; an index per consumer list, built once.
import type { GraphConsumer } from '$lib/types/consumers';

export interface ConsumerHit {
	consumer: GraphConsumer;
	/** Why it is reached: the columns it reads (`orders.amount`), or the consumers it is built on. */
	via: string[];
	/** Semantic models: the fields (entities, dimensions, measures) that read the columns. */
	fields?: string[];
}

export interface ConsumerIndex {
	/** `<asset path>\0<column>` → consumers reading that column directly. */
	byColumn: Map<string, { consumer: GraphConsumer; field?: string }[]>;
	/** `<project>\0<unique_id>` → consumers depending on that consumer. */
	dependents: Map<string, GraphConsumer[]>;
	/** `<asset path>` → exposures depending on that relation directly. */
	exposuresOf: Map<string, GraphConsumer[]>;
}

const key = (a: string, b: string) => `${a}\u0000${b}`;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
	const list = m.get(k);
	if (list) list.push(v);
	else m.set(k, [v]);
}

export function consumerIndex(consumers: readonly GraphConsumer[]): ConsumerIndex {
	const byColumn: ConsumerIndex['byColumn'] = new Map();
	const dependents: ConsumerIndex['dependents'] = new Map();
	const exposuresOf: ConsumerIndex['exposuresOf'] = new Map();
	for (const c of consumers) {
		if (c.type === 'semantic_model' && c.model_asset) {
			for (const f of c.fields ?? []) for (const col of f.reads) push(byColumn, key(c.model_asset, col), { consumer: c, field: `${f.role} ${f.name}` });
		}
		// Metrics read their columns through semantic models, but a metric inlining its
		// aggregation (dbt 1.12) reads them directly: either way its columns name them.
		if (c.type === 'metric') for (const col of c.columns ?? []) push(byColumn, key(col.asset_path, col.column), { consumer: c });
		for (const d of c.depends_on) push(dependents, key(c.script_path, d), c);
		if (c.type === 'exposure') for (const a of c.depends_on_assets) push(exposuresOf, a, c);
	}
	return { byColumn, dependents, exposuresOf };
}

const ORDER: Record<string, number> = { semantic_model: 0, metric: 1, saved_query: 2, exposure: 3 };

/**
 * The consumers a change to `columns` (relation columns, as asset path + column) reaches: those
 * reading one of them, the ones built on those (metric over metric, saved query, exposure), and
 * the exposures depending on a relation whose column is reached. Ordered semantic models,
 * metrics, saved queries, exposures, then by name.
 */
export function consumersReached(index: ConsumerIndex, columns: Iterable<{ asset_path: string; column: string }>): ConsumerHit[] {
	const hits = new Map<string, ConsumerHit>();
	const queue: GraphConsumer[] = [];
	const hit = (c: GraphConsumer, via: string, field?: string) => {
		const k = key(c.script_path, c.unique_id);
		let h = hits.get(k);
		if (!h) {
			hits.set(k, (h = { consumer: c, via: [] }));
			queue.push(c);
		}
		if (!h.via.includes(via)) h.via.push(via);
		if (field) (h.fields ??= []).includes(field) || h.fields.push(field);
	};
	for (const { asset_path, column } of columns) {
		const name = `${asset_path.slice(asset_path.lastIndexOf('/') + 1)}.${column}`;
		for (const r of index.byColumn.get(key(asset_path, column)) ?? []) hit(r.consumer, name, r.field);
		for (const e of index.exposuresOf.get(asset_path) ?? []) hit(e, asset_path.slice(asset_path.lastIndexOf('/') + 1));
	}
	// A semantic model reached through a dimension only does not change what a metric sums; its
	// metrics are reached by their own columns above. What is built on a reached metric is reached.
	while (queue.length) {
		const c = queue.shift()!;
		if (c.type === 'semantic_model') continue;
		for (const d of index.dependents.get(key(c.script_path, c.unique_id)) ?? []) hit(d, `${c.type.replace('_', ' ')} ${c.name}`);
	}
	return [...hits.values()].sort((a, b) => ORDER[a.consumer.type] - ORDER[b.consumer.type] || (a.consumer.name < b.consumer.name ? -1 : a.consumer.name > b.consumer.name ? 1 : 0));
}
