// Renders the small Jinja subset the generated projects use, the way `dbt compile` would on a
// first build: refs and sources become quoted relation names, config() calls vanish,
// is_incremental() is false, and ephemeral parents are injected as `__dbt__cte__` CTEs.
import { relationName, type ModelSpec, type ProjectSpec, type RelationSpec, type SnapshotSpec, type SourceSpec } from './spec';

export interface InjectedCte {
	id: string;
	sql: string;
}

export interface Compiled {
	code: string;
	/** The node's own SQL, without the ephemeral CTEs injected into it. */
	ownCode: string;
	extraCtes: InjectedCte[];
	/** ref() names and source() pairs in the order the SQL uses them. */
	refs: string[];
	sources: [string, string][];
}

const REF = /\{\{\s*ref\(\s*['"]([^'"]+)['"]\s*\)\s*\}\}/g;
const SOURCE = /\{\{\s*source\(\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]\s*\)\s*\}\}/g;
const CONFIG = /\{\{\s*config\([\s\S]*?\)\s*\}\}/g;
const INCREMENTAL_BLOCK = /\{%-?\s*if is_incremental\(\)\s*-?%\}[\s\S]*?\{%-?\s*endif\s*-?%\}/g;
const THIS = /\{\{\s*this\s*\}\}/g;

export class Compiler {
	private byName = new Map<string, RelationSpec>();
	private bySource = new Map<string, SourceSpec>();
	private cache = new Map<string, Compiled>();

	constructor(spec: ProjectSpec) {
		for (const n of spec.nodes) if (n.resourceType !== 'test') this.byName.set(n.name, n);
		for (const s of spec.sources) this.bySource.set(`${s.sourceName}.${s.name}`, s);
	}

	relationByName(name: string): RelationSpec | undefined {
		return this.byName.get(name);
	}

	sourceOf(sourceName: string, table: string): SourceSpec | undefined {
		return this.bySource.get(`${sourceName}.${table}`);
	}

	/** Refs and sources named by raw SQL, in order of first use. */
	references(raw: string): { refs: string[]; sources: [string, string][] } {
		const refs: string[] = [];
		const sources: [string, string][] = [];
		for (const m of raw.matchAll(REF)) if (!refs.includes(m[1])) refs.push(m[1]);
		for (const m of raw.matchAll(SOURCE)) if (!sources.some(([a, b]) => a === m[1] && b === m[2])) sources.push([m[1], m[2]]);
		return { refs, sources };
	}

	/** Compiles a model or snapshot (which is its own `{{ this }}`), or a singular test's SQL. */
	compile(node: ModelSpec | SnapshotSpec | { uniqueId: string; rawCode: string }): Compiled {
		const cached = this.cache.get(node.uniqueId);
		if (cached) return cached;
		const raw = node.rawCode;
		const { refs, sources } = this.references(raw);
		const ephemerals: ModelSpec[] = [];
		const self = 'resourceType' in node ? node : null;
		let body = raw
			.replace(CONFIG, '')
			.replace(INCREMENTAL_BLOCK, '')
			.replace(THIS, () => (self ? (relationName(self) ?? '') : ''))
			.replace(REF, (_, name: string) => {
				const target = this.byName.get(name);
				if (!target) throw new Error(`ref('${name}') in ${node.uniqueId} names no node`);
				if (target.resourceType === 'model' && target.materialized === 'ephemeral') {
					if (!ephemerals.includes(target)) ephemerals.push(target);
					return `__dbt__cte__${target.name}`;
				}
				return relationName(target) ?? '';
			})
			.replace(SOURCE, (_, s: string, t: string) => {
				const target = this.bySource.get(`${s}.${t}`);
				if (!target) throw new Error(`source('${s}', '${t}') in ${node.uniqueId} names no source`);
				return relationName(target) ?? '';
			});

		// dbt injects every ephemeral ancestor, deepest first, each once.
		const extraCtes: InjectedCte[] = [];
		const seen = new Set<string>();
		const collect = (eph: ModelSpec) => {
			const inner = this.compile(eph);
			for (const cte of inner.extraCtes) {
				if (!seen.has(cte.id)) {
					seen.add(cte.id);
					extraCtes.push(cte);
				}
			}
			if (!seen.has(eph.uniqueId)) {
				seen.add(eph.uniqueId);
				extraCtes.push({ id: eph.uniqueId, sql: ` __dbt__cte__${eph.name} as (\n${inner.ownCode}\n)` });
			}
		};
		for (const eph of ephemerals) collect(eph);
		const ownCode = body;
		if (extraCtes.length > 0) {
			const ctes = extraCtes.map((c) => c.sql).join(', ');
			const withMatch = /^(\s*)with\b/i.exec(body);
			body = withMatch ? `${withMatch[1]}with${ctes}, ${body.slice(withMatch[0].length).replace(/^\s+/, '')}` : `with${ctes}\n${body}`;
		}
		const result: Compiled = { code: body, ownCode, extraCtes, refs, sources };
		this.cache.set(node.uniqueId, result);
		return result;
	}
}
