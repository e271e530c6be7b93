// Synthetic canvas graphs for the disclosure and layout tests: a dbt-shaped project (sources,
// staging, intermediate families, marts) of any size, deterministic for a seed.
import { assetNodeId, type CanvasEdge, type CanvasNode } from '../../src/lib/lineage/canvas-model';

function rng(seed: number) {
	let s = seed >>> 0;
	return () => {
		s = (s + 0x6d2b79f5) >>> 0;
		let t = s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const DOMAINS = ['billing', 'crm', 'finance', 'marketing', 'product', 'support', 'sales', 'people', 'ops', 'web', 'ads', 'payments'];
const ENTITIES = ['orders', 'customers', 'invoices', 'charges', 'events', 'tickets', 'accounts', 'deals', 'campaigns', 'sessions'];
const VERBS = ['joined', 'enriched', 'by_day', 'by_month', 'deduplicated', 'filtered', 'pivoted', 'scored', 'unioned', 'windowed'];

export function syntheticProject(models: number, seed = 1): { nodes: CanvasNode[]; edges: CanvasEdge[] } {
	const r = rng(seed);
	const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
	const nodes: CanvasNode[] = [];
	const layers: string[][] = [[], [], [], []];
	const names = new Set<string>();
	const add = (layer: number, schema: string, name: string, resourceType: string) => {
		let n = name;
		for (let i = 2; names.has(`${schema}.${n}`); i++) n = `${name}_${i}`;
		names.add(`${schema}.${n}`);
		const path = `main/${schema}/${n}`;
		nodes.push({ id: assetNodeId('dbt', path), type: 'asset', kind: 'dbt', path, name: n, schema: `main/${schema}`, resourceType, materialized: 'table', tests: { error: 0, warn: 0 } });
		layers[layer].push(assetNodeId('dbt', path));
	};
	const counts = [0.1, 0.2, 0.45, 0.25].map((f) => Math.max(1, Math.round(models * f)));
	for (let i = 0; i < counts[0]; i++) add(0, `raw_${pick(DOMAINS)}`, pick(ENTITIES), 'source');
	for (let i = 0; i < counts[1]; i++) add(1, 'analytics_staging', `stg_${pick(DOMAINS)}__${pick(ENTITIES)}`, 'model');
	for (let i = 0; i < counts[2]; i++) add(2, 'analytics_intermediate', `int_${pick(DOMAINS)}__${pick(ENTITIES)}_${pick(VERBS)}`, 'model');
	for (let i = 0; i < counts[3]; i++) add(3, 'analytics_marts', `${pick(['dim', 'fct', 'mart', 'rpt'])}_${pick(ENTITIES)}_${pick(VERBS)}`, 'model');
	const edges: CanvasEdge[] = [];
	const seen = new Set<string>();
	for (let l = 1; l < 4; l++) {
		for (const t of layers[l]) {
			const parents = 1 + Math.floor(r() * 3);
			for (let k = 0; k < parents; k++) {
				const from = layers[r() < 0.8 ? l - 1 : Math.floor(r() * l)];
				const s = pick(from);
				const key = `${s}>${t}`;
				if (seen.has(key)) continue;
				seen.add(key);
				edges.push({ source: s, target: t, kind: 'ref' });
			}
		}
	}
	return { nodes, edges };
}
