// A dbt project of any size for benchmarks and tests. Families of models (one per source
// system, plus tiny reference-data families on seeds) never touch each other, so the graph has
// many connected components. Inside a family: sources → staging → intermediate → marts, with
// fan-out and diamonds. Every model's SQL is rendered from the same plan its column lineage
// comes from, and each model is sized to a share of the requested edge count so the total is
// exact. Two feedback loops keep the kinds near a real project's mix (≈60% scan, 30% copy,
// 10% mod).
import { createRng, type Rng } from './rng';
import type {
	ColumnSpec,
	FolderConfig,
	LineageEdge,
	LocalPackage,
	ModelSpec,
	PlannedOutcome,
	ProjectSpec,
	RelationSpec,
	SeedSpec,
	SnapshotSpec,
	SourceSpec,
	TestSpec
} from './spec';
import { genericTest, singularTest } from './test-builder';
import {
	AGG_VERBS,
	ATTRIBUTES,
	INTERMEDIATE_VERBS,
	MART_PREFIXES,
	REFERENCE_SEEDS,
	REGION_SUFFIXES,
	SCHEDULE_TAGS,
	SOURCE_SYSTEMS,
	TEAMS,
	safeAlias,
	singular,
	type SourceSystem
} from './vocabulary';

export interface ScaledOptions {
	seed: number;
	models: number;
	columnEdges: number;
	name?: string;
	failures?: boolean;
}

const DATABASE = 'warehouse';
const TARGET_SCHEMA = 'analytics';
/** Widest model the generator writes. */
const MAX_OUTPUTS = 120;
/** Aimed a little under 60%: joins bring scans the feedback loop cannot take back. */
const SCAN_SHARE = 0.57;
/** copy / (copy + mod): 30% copy against 10% mod. */
const COPY_SHARE = 0.76;
/** Direct inputs per output column the sizing aims at. */
const INPUTS_PER_OUTPUT = 1.06;

type Layer = 'staging' | 'intermediate' | 'mart';
type Cat = 'key' | 'num' | 'str' | 'ts' | 'date' | 'bool';

interface Family {
	index: number;
	packageName: string;
	domain: string;
	/** `<entity>_id`, carried by every relation of the family. */
	mainKey: string;
	sourceName: string | null;
	micro: boolean;
	roots: (SourceSpec | SeedSpec)[];
	staging: Plan[];
	snapshots: SnapshotSpec[];
	intermediates: Plan[];
	marts: Plan[];
}

interface Plan {
	model: ModelSpec;
	layer: Layer;
	family: Family;
	agg: boolean;
	weight: number;
	budget: number;
	/** Root table for staging models. */
	root?: SourceSpec | SeedSpec;
}

interface Ref {
	rel: RelationSpec;
	alias: string;
	col: ColumnSpec;
}

interface Output {
	name: string;
	type: string;
	kind: 'copy' | 'mod' | 'literal';
	inputs: Ref[];
	expr: string;
}

interface Join {
	right: Ref;
	left: Ref;
}

interface Filter {
	ref: Ref;
	expr: string;
}

function catOf(c: { name: string; type: string }): Cat {
	if (c.name === 'id' || c.name.endsWith('_id')) return 'key';
	if (c.type === 'BOOLEAN') return 'bool';
	if (c.type === 'TIMESTAMP') return 'ts';
	if (c.type === 'DATE') return 'date';
	if (c.type === 'VARCHAR') return 'str';
	return 'num';
}

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));

class NameSet {
	private used = new Set<string>();
	constructor(private max = 63) {}
	take(wanted: string): string {
		let base = wanted.replace(/[^a-z0-9_]/g, '_').replace(/___+/g, '__').replace(/^_?([0-9])/, 'c_$1');
		if (base.length > this.max - 3) base = base.slice(0, this.max - 3).replace(/_$/, '');
		let name = base;
		for (let i = 2; this.used.has(name); i++) name = `${base}_${i}`;
		this.used.add(name);
		return name;
	}
	has(name: string) {
		return this.used.has(name);
	}
	/** The first free name among the choices, else the first with a numeric suffix. */
	takeFirstFree(choices: string[]): string {
		const free = choices.find((c) => c.length <= this.max && !this.used.has(c));
		return this.take(free ?? choices[0]);
	}
}

export function scaledProjectSpec(opts: ScaledOptions): ProjectSpec {
	return new ScaledGenerator(opts).run();
}

class ScaledGenerator {
	private rng: Rng;
	private project: string;
	private families: Family[] = [];
	private modelNames = new NameSet(60);
	private sourceNames = new NameSet(40);
	private sources: SourceSpec[] = [];
	private seeds: SeedSpec[] = [];
	private packages: LocalPackage[] = [];
	private folderConfigs: FolderConfig[] = [];
	private lineage: LineageEdge[] = [];
	private byId = new Map<string, RelationSpec>();
	/** The business entity a relation is about (`invoices`), for names that stay short down the DAG. */
	private entities = new Map<string, string>();
	private counts = { copy: 0, mod: 0, scan: 0 };

	constructor(private opts: ScaledOptions) {
		if (!Number.isInteger(opts.models) || opts.models < 1) throw new Error('models must be a positive integer');
		if (!Number.isInteger(opts.columnEdges) || opts.columnEdges < 0) throw new Error('columnEdges must be a non-negative integer');
		this.rng = createRng(opts.seed);
		this.project = opts.name ?? 'scaled_project';
	}

	run(): ProjectSpec {
		this.planFamilies();
		this.assignBudgets();
		this.buildLineage();
		const tests = this.planTests();
		this.addStaleDocs();
		const outcomes = this.opts.failures ? this.planFailures(tests) : new Map<string, PlannedOutcome>();
		const models = this.families.flatMap((f) => [...f.staging, ...f.intermediates, ...f.marts].map((p) => p.model));
		const snapshots = this.families.flatMap((f) => f.snapshots);
		return {
			mode: 'scaled',
			seed: this.opts.seed,
			name: this.project,
			database: DATABASE,
			schema: TARGET_SCHEMA,
			adapter: 'duckdb',
			dbtVersion: '1.10.15',
			profile: this.project,
			sources: this.sources,
			nodes: [...this.seeds, ...models, ...snapshots, ...tests],
			lineage: this.lineage,
			folderConfigs: this.folderConfigs,
			packages: this.packages,
			outcomes,
			startedAt: Date.UTC(2026, 2, 2, 5, 0, 0),
			threads: 8
		};
	}

	// Structure ---------------------------------------------------------------------------------

	private familySizes(): { micro: number[]; normal: number[] } {
		const n = this.opts.models;
		const rng = this.rng;
		const micro: number[] = [];
		const microCount = n >= 12 ? Math.max(2, Math.round(n / 100)) : n >= 4 ? 1 : 0;
		for (let i = 0; i < microCount; i++) micro.push(rng.chance(0.6) ? 1 : 2);
		let left = n - micro.reduce((a, b) => a + b, 0);
		const maxF = clamp(Math.round(n / 5), 6, 150);
		// A few sizes up front so that small projects still have a large family.
		const normal: number[] = [];
		for (const s of [maxF, Math.round(maxF / 3), Math.round(maxF / 9)]) {
			if (left >= 3 && s >= 3) {
				const take = Math.min(s, left);
				normal.push(take);
				left -= take;
			}
		}
		while (left > 0) {
			let s = Math.round(Math.exp(Math.log(3) + rng.next() * (Math.log(maxF) - Math.log(3))));
			s = Math.min(s, left);
			if (left - s > 0 && left - s < 3) s = left;
			normal.push(s);
			left -= s;
		}
		// Fewer than three models left for a family: give them to the previous one.
		if (normal.length > 1 && normal[normal.length - 1] < 3) normal[normal.length - 2] += normal.pop()!;
		return { micro, normal };
	}

	private planFamilies() {
		const { micro, normal } = this.familySizes();
		const rng = this.rng;
		const domains = new Set<string>();

		// Reference-data families: a seed and one or two models on it.
		micro.forEach((size, i) => {
			const ref = REFERENCE_SEEDS[i % REFERENCE_SEEDS.length];
			const suffix = i >= REFERENCE_SEEDS.length ? `_${Math.floor(i / REFERENCE_SEEDS.length) + 1}` : '';
			const seed = this.makeSeed(`${ref.name}${suffix}`, ref.columns);
			const family: Family = {
				index: this.families.length,
				packageName: this.project,
				domain: 'reference',
				mainKey: ref.columns[0].name,
				sourceName: null,
				micro: true,
				roots: [seed],
				staging: [],
				snapshots: [],
				intermediates: [],
				marts: []
			};
			this.entities.set(seed.uniqueId, seed.name);
			family.staging.push(this.newPlan(family, 'staging', [`stg_reference__${seed.name}`], 'reference', [seed.uniqueId], seed));
			if (size > 1) family.marts.push(this.newPlan(family, 'mart', [`dim_${seed.name}`], 'reference', [family.staging[0].model.uniqueId]));
			domains.add('reference');
			this.families.push(family);
		});

		const snapshotsWanted = Math.max(1, Math.round(this.opts.models / 300));
		normal.forEach((size, i) => {
			const system = SOURCE_SYSTEMS[i % SOURCE_SYSTEMS.length];
			const round = Math.floor(i / SOURCE_SYSTEMS.length);
			const region = round === 0 ? '' : `_${REGION_SUFFIXES[(round - 1) % REGION_SUFFIXES.length]}${round > REGION_SUFFIXES.length ? round : ''}`;
			const sourceName = this.sourceNames.take(`${system.name}${region}`);
			const isPackage = size >= 6 && rng.chance(0.2);
			const packageName = isPackage ? `${sourceName}_source` : this.project;
			if (isPackage) this.packages.push({ name: packageName, dir: `packages/${packageName}` });
			const family: Family = {
				index: this.families.length,
				packageName,
				domain: system.domain,
				mainKey: `${system.entity}_id`,
				sourceName,
				micro: false,
				roots: [],
				staging: [],
				snapshots: [],
				intermediates: [],
				marts: []
			};
			domains.add(system.domain);
			this.families.push(family);
			const wantSnapshot = snapshotsWanted > this.snapshotCount() && (i % 3 === 1 || i === normal.length - 1);
			this.planNormalFamily(family, system, size, wantSnapshot);
		});

		const staging = { materialized: 'view', schema: 'staging' };
		this.folderConfigs.push(
			{ packageName: this.project, resource: 'models', folder: 'staging', config: staging },
			{ packageName: this.project, resource: 'models', folder: 'intermediate', config: { materialized: 'view', schema: 'intermediate' } },
			{ packageName: this.project, resource: 'models', folder: 'marts', config: { materialized: 'table', schema: 'marts' } },
			{ packageName: this.project, resource: 'snapshots', folder: '', config: { schema: 'snapshots' } }
		);
		for (const d of [...domains].sort()) {
			this.folderConfigs.push({ packageName: this.project, resource: 'models', folder: `marts/${d}`, config: { tags: [d] } });
		}
		for (const p of this.packages) this.folderConfigs.push({ packageName: p.name, resource: 'models', folder: '', config: staging });
	}

	private snapshotCount() {
		return this.families.reduce((n, f) => n + f.snapshots.length, 0);
	}

	private planNormalFamily(family: Family, system: SourceSystem, size: number, withSnapshot: boolean) {
		const rng = this.rng;
		const nSources = clamp(Math.round(size * 0.045), 1, system.tables.length);
		const tables = system.tables.slice(0, nSources);
		for (const table of tables) family.roots.push(this.makeSource(family, system, table));
		const nStaging = Math.min(size, family.roots.length);
		for (let i = 0; i < nStaging; i++) {
			const root = family.roots[i] as SourceSpec;
			family.staging.push(this.newPlan(family, 'staging', [`stg_${family.sourceName}__${root.name}`], family.sourceName!, [root.uniqueId], root));
		}
		if (withSnapshot) this.addSnapshot(family);
		const rest = size - nStaging;
		const nInt = Math.ceil(rest * 0.55);
		const nMart = rest - nInt;
		const unusedStaging = family.staging.map((p) => p.model.uniqueId);
		for (let i = 0; i < nInt; i++) {
			const pool = [...family.staging, ...family.intermediates].map((p) => p.model.uniqueId).concat(family.snapshots.map((s) => s.uniqueId));
			const parents = this.pickParents(pool, unusedStaging, rng.chance(0.5) ? 1 : rng.chance(0.8) ? 2 : 3, family.intermediates.length);
			const agg = rng.chance(0.3);
			const [e0, e1] = parents.map((p) => this.entities.get(p)!);
			const verbs = rng.sample(agg ? AGG_VERBS : INTERMEDIATE_VERBS, 3);
			const names = verbs.map((v) => `int_${family.domain}__${e0}_${v}`);
			if (e1 && e1 !== e0) names.push(...verbs.map((v) => `int_${family.domain}__${e0}_${e1}_${v}`));
			family.intermediates.push(this.newPlan(family, 'intermediate', names, family.domain, parents, undefined, agg));
		}
		for (let i = 0; i < nMart; i++) {
			const pool = [...family.intermediates, ...family.staging, ...family.marts].map((p) => p.model.uniqueId);
			const k = rng.chance(0.35) ? 1 : rng.chance(0.62) ? 2 : rng.chance(0.7) ? 3 : 4;
			const parents = this.pickParents(pool, [], k, pool.length);
			const prefix = rng.pick(MART_PREFIXES);
			const agg = prefix === 'agg' || prefix === 'rpt' ? true : rng.chance(0.2);
			const [e0, e1] = parents.map((p) => this.entities.get(p)!);
			const period = rng.pick(['daily', 'weekly', 'monthly']);
			const names =
				prefix === 'rpt'
					? [`rpt_${family.domain}_${e0}_${period}`, `rpt_${family.domain}_${e0}_${e1 ?? 'summary'}`]
					: prefix === 'agg'
						? [`agg_${e0}_${period}`, `agg_${e0}_by_${family.mainKey.replace(/_id$/, '')}`]
						: [`${prefix}_${e0}`, `${prefix}_${family.domain}_${e0}`, `${prefix}_${e0}_${e1 ?? period}`];
			family.marts.push(this.newPlan(family, 'mart', names, family.domain, parents, undefined, agg));
		}
	}

	/** p0 prefers an unused staging model (every staging model gets a reader), then recent models (chains). */
	private pickParents(pool: string[], unused: string[], count: number, recentBias: number): string[] {
		const rng = this.rng;
		const out: string[] = [];
		if (unused.length > 0 && rng.chance(0.7)) out.push(unused.shift()!);
		else if (pool.length > 0) {
			const recent = pool.slice(Math.max(0, pool.length - Math.max(3, Math.round(recentBias / 3))));
			out.push(rng.chance(0.6) ? rng.pick(recent) : rng.pick(pool));
		}
		const rest = pool.filter((p) => !out.includes(p));
		out.push(...rng.sample(rest, Math.max(0, count - out.length)));
		const i = unused.indexOf(out[0]);
		if (i >= 0) unused.splice(i, 1);
		return out;
	}

	private newPlan(family: Family, layer: Layer, names: string[], folder: string, parents: string[], root?: SourceSpec | SeedSpec, agg = false): Plan {
		const rng = this.rng;
		const name = this.modelNames.takeFirstFree(names);
		const inPackage = layer === 'staging' && family.packageName !== this.project;
		const pkg = inPackage ? family.packageName : this.project;
		const dir = inPackage ? 'models' : layer === 'staging' ? `models/staging/${folder}` : layer === 'intermediate' ? `models/intermediate/${folder}` : `models/marts/${folder}`;
		const customSchema = layer === 'staging' ? 'staging' : layer === 'intermediate' ? 'intermediate' : 'marts';
		let materialized: ModelSpec['materialized'] = layer === 'mart' ? 'table' : 'view';
		const configCall: Record<string, unknown> = {};
		let incrementalStrategy: string | null = null;
		if (layer === 'intermediate') {
			const r = rng.next();
			if (r < 0.06) materialized = 'ephemeral';
			else if (r < 0.36) materialized = 'table';
		} else if (layer === 'mart' && !family.micro && rng.chance(0.12)) {
			materialized = 'incremental';
			incrementalStrategy = rng.pick(['merge', 'merge', 'delete+insert', 'append']);
		}
		if (materialized !== (layer === 'mart' ? 'table' : 'view')) configCall.materialized = materialized;
		if (incrementalStrategy) configCall.incremental_strategy = incrementalStrategy;
		const tags: string[] = [];
		if (layer === 'mart') tags.push(family.domain, rng.pick(SCHEDULE_TAGS));
		if (layer === 'mart' && rng.chance(0.1)) tags.push('pii');
		if (layer === 'staging' && !family.micro) tags.push(rng.pick(SCHEDULE_TAGS));
		const model: ModelSpec = {
			resourceType: 'model',
			uniqueId: `model.${pkg}.${name}`,
			name,
			packageName: pkg,
			database: DATABASE,
			schema: `${TARGET_SCHEMA}_${customSchema}`,
			alias: name,
			description: '',
			columns: [],
			tags: [...new Set(tags)],
			meta: layer === 'staging' ? {} : { owner: TEAMS[family.index % TEAMS.length] },
			filePath: `${dir}/${name}.sql`,
			ymlPath: inPackage ? `models/${family.sourceName}__models.yml` : `${dir}/schema.yml`,
			rowCount: materialized === 'view' || materialized === 'ephemeral' ? null : rng.int(1000, 5_000_000),
			materialized,
			incrementalStrategy,
			uniqueKey: null,
			onSchemaChange: materialized === 'incremental' ? 'append_new_columns' : 'ignore',
			rawCode: '',
			configCall,
			parents
		};
		this.byId.set(model.uniqueId, model);
		this.entities.set(model.uniqueId, root ? root.name : this.entities.get(parents[0])!);
		const weight =
			(family.micro ? 0.14 : layer === 'staging' ? 0.55 : layer === 'intermediate' ? 1 : 1.35) * Math.exp(0.3 * rng.normal());
		return { model, layer, family, agg, weight, budget: 0, root };
	}

	private makeSource(family: Family, system: SourceSystem, table: string): SourceSpec {
		const rng = this.rng;
		const entity = singular(table);
		const columns: ColumnSpec[] = [{ name: 'id', type: 'BIGINT' }];
		if (entity !== system.entity) columns.push({ name: family.mainKey, type: 'BIGINT' });
		for (const other of rng.sample(system.tables.filter((t) => t !== table), rng.int(0, 2))) {
			const key = `${singular(other)}_id`;
			if (!columns.some((c) => c.name === key)) columns.push({ name: key, type: 'BIGINT' });
		}
		// Wide enough for the staging model's share of the edges, as raw tables usually are.
		const want = clamp(Math.round((this.opts.columnEdges / Math.max(1, this.opts.models)) * 0.55 * 0.9) + rng.int(2, 8), 6, 90);
		const start = rng.int(0, ATTRIBUTES.length - 1);
		for (let i = 0; columns.length < want && i < ATTRIBUTES.length; i++) columns.push({ ...ATTRIBUTES[(start + i) % ATTRIBUTES.length] });
		for (let i = 1; columns.length < want; i++) columns.push({ name: `custom_field_${i}`, type: 'VARCHAR' });
		columns.push({ name: '_fivetran_deleted', type: 'BOOLEAN' }, { name: '_fivetran_synced', type: 'TIMESTAMP' });
		const pkg = family.packageName;
		const inPackage = pkg !== this.project;
		const source: SourceSpec = {
			resourceType: 'source',
			uniqueId: `source.${pkg}.${family.sourceName}.${table}`,
			name: table,
			packageName: pkg,
			database: DATABASE,
			schema: `raw_${family.sourceName}`,
			alias: table,
			description: `${system.name} ${table.replace(/_/g, ' ')}, replicated by Fivetran.`,
			columns,
			tags: [],
			meta: {},
			sourceName: family.sourceName!,
			sourceDescription: `Raw ${system.name} data (${family.sourceName}).`,
			loader: 'fivetran',
			ymlPath: inPackage ? `models/src_${family.sourceName}.yml` : `models/staging/${family.sourceName}/sources.yml`,
			loadedAtField: '_fivetran_synced',
			freshness: rng.chance(0.5) ? { warnAfter: { count: 12, period: 'hour' }, errorAfter: { count: 24, period: 'hour' } } : null
		};
		this.sources.push(source);
		this.byId.set(source.uniqueId, source);
		this.entities.set(source.uniqueId, table);
		return source;
	}

	private makeSeed(wanted: string, cols: { name: string; type: string }[]): SeedSpec {
		const rng = this.rng;
		const name = this.modelNames.take(wanted);
		const rows = rng.int(4, 24);
		const lines = [cols.map((c) => c.name).join(',')];
		for (let r = 0; r < rows; r++) {
			lines.push(
				cols
					.map((c, i) => {
						if (c.type === 'BOOLEAN') return rng.chance(0.5) ? 'true' : 'false';
						if (c.type === 'INTEGER') return String(rng.int(1, 12));
						if (c.type === 'DOUBLE') return (rng.next() * 2).toFixed(4);
						if (c.type.startsWith('DECIMAL')) return (rng.next() * 500).toFixed(2);
						if (c.type === 'DATE') return `2025-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
						return i === 0 ? `${c.name.slice(0, 3).toUpperCase()}${String(r + 1).padStart(3, '0')}` : `${c.name.replace(/_/g, ' ')} ${r + 1}`;
					})
					.join(',')
			);
		}
		const csv = `${lines.join('\n')}\n`;
		const seed: SeedSpec = {
			resourceType: 'seed',
			uniqueId: `seed.${this.project}.${name}`,
			name,
			packageName: this.project,
			database: DATABASE,
			schema: TARGET_SCHEMA,
			alias: name,
			description: `Reference table ${name.replace(/_/g, ' ')}, maintained by hand.`,
			columns: cols.map((c) => ({ ...c, description: `${c.name.replace(/_/g, ' ')}.` })),
			tags: ['reference'],
			meta: {},
			filePath: `seeds/${name}.csv`,
			ymlPath: 'seeds/schema.yml',
			rowCount: rows,
			csv
		};
		this.seeds.push(seed);
		this.byId.set(seed.uniqueId, seed);
		return seed;
	}

	private addSnapshot(family: Family) {
		const root = family.roots[0] as SourceSpec;
		const name = this.modelNames.take(`${family.sourceName}__${root.name}_snapshot`);
		const snap: SnapshotSpec = {
			resourceType: 'snapshot',
			uniqueId: `snapshot.${this.project}.${name}`,
			name,
			packageName: this.project,
			database: DATABASE,
			schema: `${TARGET_SCHEMA}_snapshots`,
			alias: name,
			description: `History of ${family.sourceName}.${root.name}: a new version whenever a row changes.`,
			columns: [],
			tags: [],
			meta: {},
			filePath: `snapshots/${name}.sql`,
			ymlPath: 'snapshots/schema.yml',
			rowCount: this.rng.int(10_000, 900_000),
			rawCode: '',
			strategy: 'timestamp',
			uniqueKey: 'id',
			updatedAt: '_fivetran_synced',
			configCall: { unique_key: 'id', strategy: 'timestamp', updated_at: '_fivetran_synced' },
			parents: [root.uniqueId]
		};
		family.snapshots.push(snap);
		this.byId.set(snap.uniqueId, snap);
		this.entities.set(snap.uniqueId, `${root.name}_history`);
	}

	// Budgets -----------------------------------------------------------------------------------

	private allPlans(): Plan[] {
		return this.families.flatMap((f) => [...f.staging, ...f.intermediates, ...f.marts]);
	}

	/** Split the edge count over the models by weight, largest remainder, so the shares sum exactly. */
	private assignBudgets() {
		const plans = this.allPlans();
		const total = plans.reduce((a, p) => a + p.weight, 0);
		const exact = plans.map((p) => (this.opts.columnEdges * p.weight) / total);
		let assigned = 0;
		plans.forEach((p, i) => {
			p.budget = Math.floor(exact[i]);
			assigned += p.budget;
		});
		const order = plans.map((_, i) => i).sort((a, b) => exact[b] - Math.floor(exact[b]) - (exact[a] - Math.floor(exact[a])) || a - b);
		for (let i = 0; i < this.opts.columnEdges - assigned; i++) plans[order[i % plans.length]].budget++;
	}

	// Lineage and SQL ---------------------------------------------------------------------------

	private buildLineage() {
		const plans = this.allPlans();
		let planned = 0;
		let produced = 0;
		let left = plans.length;
		for (const family of this.families) {
			const ordered: (Plan | SnapshotSpec)[] = [...family.staging, ...family.snapshots, ...family.intermediates, ...family.marts];
			for (const item of ordered) {
				if (!('layer' in item)) {
					// A snapshot copies every column; when that no longer fits the edge count it stays unanalysed.
					produced += this.buildSnapshot(item, this.opts.columnEdges - produced);
					continue;
				}
				planned += item.budget;
				left--;
				// What earlier models over- or under-shot is carried into this one; the last takes all that is left.
				const target = left === 0 ? this.opts.columnEdges - produced : Math.max(0, planned - produced);
				produced += item.layer === 'staging' ? this.buildStaging(item, target) : this.buildModel(item, target);
			}
		}
		if (produced !== this.opts.columnEdges) throw new Error(`generated ${produced} column edges, ${this.opts.columnEdges} requested`);
	}

	private emit(toId: string, outputs: Output[], scans: Ref[]): number {
		const before = this.lineage.length;
		for (const o of outputs) {
			for (const i of o.inputs) {
				this.lineage.push({ fromId: i.rel.uniqueId, fromColumn: i.col.name, toId, toColumn: o.name, kind: o.kind === 'copy' ? 'copy' : 'mod' });
				this.counts[o.kind === 'copy' ? 'copy' : 'mod']++;
			}
		}
		for (const o of outputs) {
			for (const s of scans) {
				this.lineage.push({ fromId: s.rel.uniqueId, fromColumn: s.col.name, toId, toColumn: o.name, kind: 'scan' });
				this.counts.scan++;
			}
		}
		return this.lineage.length - before;
	}

	/** The scan share this model should aim for: the target, pulled against what is running over or under. */
	private wantedScanKeys(): number {
		const { copy, mod, scan } = this.counts;
		const total = copy + mod + scan;
		const share = total === 0 ? SCAN_SHARE : scan / total;
		const x = clamp(SCAN_SHARE + (SCAN_SHARE - share) * 2, 0.2, 0.85);
		return (x * INPUTS_PER_OUTPUT) / (1 - x) + (this.rng.next() - 0.5) * 1.2;
	}

	private wantedCopyShare(): number {
		const { copy, mod } = this.counts;
		const share = copy + mod === 0 ? COPY_SHARE : copy / (copy + mod);
		return clamp(COPY_SHARE + (COPY_SHARE - share) * 2, 0.45, 0.97);
	}

	/**
	 * Output count o and scan-source count k (= base + filters) such that k·o + d = t, where d, the
	 * direct inputs, should be close to one per output: extra inputs make multi-input mods and
	 * missing ones make literal columns, both of which a real model has only a few of.
	 */
	private size(t: number, kBase: number, fMax: number, fWanted: number, columns: number): { f: number; o: number; d: number } {
		const widest = clamp(columns * 2 + 4, 1, MAX_OUTPUTS);
		let best: { f: number; o: number; d: number; score: number } | null = null;
		for (let f = 0; f <= fMax; f++) {
			const k = kBase + f;
			if (k > t) break;
			const options = new Set([Math.floor(t / (k + 1)), Math.round(t / (k + INPUTS_PER_OUTPUT)), Math.ceil(t / (k + 1)), k === 0 ? t : Math.floor(t / k)]);
			for (const raw of options) {
				const o = clamp(raw, 1, widest);
				const d = t - k * o;
				if (d < 0) continue;
				const off = d >= o ? (d - o) / o : (1.5 * (o - d)) / o;
				const score = Math.abs(f - fWanted) + 4 * off + (d > 3 * o ? 50 : 0);
				if (!best || score < best.score) best = { f, o, d, score };
			}
		}
		return best ? { f: best.f, o: best.o, d: best.d } : { f: 0, o: 1, d: t - kBase };
	}

	private buildStaging(plan: Plan, t: number): number {
		const root = plan.root!;
		const family = plan.family;
		const alias = 'source';
		const entity = singular(root.name);
		const ref = (col: ColumnSpec): Ref => ({ rel: root, alias, col });
		const usable = root.columns.filter((c) => !c.name.startsWith('_fivetran'));
		const filterCands: Filter[] = [];
		for (const c of root.columns) {
			if (c.name === '_fivetran_deleted' || c.name === 'is_test') filterCands.push({ ref: ref(c), expr: `not ${c.name}` });
			else if (c.name === 'deleted_at') filterCands.push({ ref: ref(c), expr: `${c.name} is null` });
			else if (c.name === 'status') filterCands.push({ ref: ref(c), expr: `${c.name} != 'test'` });
		}
		const fWanted = clamp(Math.round(this.wantedScanKeys()), 0, filterCands.length);
		const { f, o, d } = t === 0 ? { f: 0, o: Math.min(3, usable.length), d: 0 } : this.size(t, 0, Math.min(2, filterCands.length), fWanted, usable.length);
		const filters = filterCands.slice(0, f);
		const names = new NameSet();
		const rename = (c: ColumnSpec) => (c.name === 'id' ? (root.resourceType === 'seed' ? null : `${entity}_id`) : null);
		const candidates = usable.map(ref);
		const outputs = this.assignOutputs({ candidates, o, d, agg: false, names, qualify: false, rename, copyShare: this.wantedCopyShare(), staging: true });
		plan.model.columns = outputs.map((out) => ({ name: out.name, type: out.type }));
		const written = this.emit(plan.model.uniqueId, outputs, filters.map((x) => x.ref));
		const from = root.resourceType === 'source' ? `{{ source('${root.sourceName}', '${root.name}') }}` : `{{ ref('${root.name}') }}`;
		const where = filters.length > 0 ? `\n    where ${filters.map((x) => x.expr).join('\n      and ')}` : '';
		plan.model.rawCode = `with

source as (

    select * from ${from}

),

renamed as (

    select
        ${outputs.map((x) => x.expr).join(',\n        ')}

    from source${where}

)

select * from renamed
`;
		plan.model.description = family.micro
			? `${root.name.replace(/_/g, ' ')} reference data, typed and renamed. One row per ${plan.family.mainKey.replace(/_/g, ' ')}.`
			: `Staged ${family.sourceName}.${root.name}: renamed, typed${filters.length ? ', deleted and test rows removed' : ''}. One row per ${entity.replace(/_/g, ' ')}.`;
		return written;
	}

	private buildSnapshot(snap: SnapshotSpec, room: number): number {
		const root = this.byId.get(snap.parents[0])!;
		const outputs: Output[] = root.columns.map((c) => ({ name: c.name, type: c.type, kind: 'copy', inputs: [{ rel: root, alias: '', col: c }], expr: c.name }));
		snap.columns = [
			...root.columns.map((c) => ({ name: c.name, type: c.type })),
			{ name: 'dbt_scd_id', type: 'VARCHAR' },
			{ name: 'dbt_updated_at', type: 'TIMESTAMP' },
			{ name: 'dbt_valid_from', type: 'TIMESTAMP' },
			{ name: 'dbt_valid_to', type: 'TIMESTAMP' }
		];
		const from = root.resourceType === 'source' ? `{{ source('${root.sourceName}', '${root.name}') }}` : `{{ ref('${root.name}') }}`;
		snap.rawCode = `

{{
    config(
        unique_key='id',
        strategy='timestamp',
        updated_at='_fivetran_synced'
    )
}}

select * from ${from}

`;
		return outputs.length <= room ? this.emit(snap.uniqueId, outputs, []) : 0;
	}

	private buildModel(plan: Plan, t: number): number {
		const rng = this.rng;
		const model = plan.model;
		const family = plan.family;
		let parents = model.parents.map((id) => this.byId.get(id)!);
		const aliases = new NameSet(40);
		const aliasOf = new Map<string, string>();
		for (const p of parents) aliasOf.set(p.uniqueId, aliases.take(safeAlias(this.entities.get(p.uniqueId)!)));
		const refsOf = (p: RelationSpec) => p.columns.filter((c) => !c.yamlOnly).map((col) => ({ rel: p, alias: aliasOf.get(p.uniqueId)!, col }));

		// Joins on a key both sides carry (the family key, or another shared *_id).
		const joinsFor = (ps: RelationSpec[]): Join[] => {
			const p0 = ps[0];
			return ps.slice(1).map((pj) => {
				const shared = p0.columns.filter((c) => catOf(c) === 'key' && pj.columns.some((x) => x.name === c.name));
				const key = shared.find((c) => c.name === family.mainKey && rng.chance(0.7)) ?? (shared.length > 0 ? rng.pick(shared) : null);
				const left = key ?? p0.columns.find((c) => catOf(c) === 'key') ?? p0.columns[0];
				const right = pj.columns.find((c) => c.name === left.name) ?? pj.columns.find((c) => catOf(c) === 'key') ?? pj.columns[0];
				return { left: { rel: p0, alias: aliasOf.get(p0.uniqueId)!, col: left }, right: { rel: pj, alias: aliasOf.get(pj.uniqueId)!, col: right } };
			});
		};
		let joins = joinsFor(parents);
		let agg = plan.agg;
		const groupKeyOf = (ps: RelationSpec[]) => ps[0].columns.find((c) => c.name === family.mainKey) ?? ps[0].columns.find((c) => catOf(c) === 'key') ?? null;
		const scanBase = (): Ref[] => {
			const out: Ref[] = [];
			const add = (r: Ref) => {
				if (!out.some((x) => x.rel === r.rel && x.col.name === r.col.name)) out.push(r);
			};
			for (const j of joins) {
				add(j.left);
				add(j.right);
			}
			const g = agg ? groupKeyOf(parents) : null;
			if (g) add({ rel: parents[0], alias: aliasOf.get(parents[0].uniqueId)!, col: g });
			return out;
		};
		let base = scanBase();
		// A small share cannot pay for many joins: drop joined parents until it can.
		while (base.length + 1 > t && parents.length > 1) {
			parents = parents.slice(0, -1);
			joins = joinsFor(parents);
			base = scanBase();
		}
		if (base.length + 1 > t && agg) {
			agg = false;
			base = scanBase();
		}
		model.parents = parents.map((p) => p.uniqueId);
		if (!agg || !groupKeyOf(parents)) agg = false;

		const filterCands: Filter[] = [];
		for (const p of parents) {
			for (const r of refsOf(p)) {
				const c = catOf(r.col);
				if (c === 'key' || base.some((b) => b.rel === r.rel && b.col.name === r.col.name)) continue;
				filterCands.push({ ref: r, expr: filterExpr(r, rng) });
			}
		}
		const allRefs = parents.flatMap(refsOf);
		const fWanted = clamp(Math.round(this.wantedScanKeys() - base.length), 0, 12);
		const shuffledFilters = rng.sample(filterCands, Math.min(12, filterCands.length));
		const { f, o, d } =
			t === 0 ? { f: 0, o: 1, d: 0 } : this.size(t, base.length, shuffledFilters.length, fWanted, allRefs.length);
		const filters = t === 0 ? [] : shuffledFilters.slice(0, f);
		const scans = t === 0 ? [] : [...base, ...filters.map((x) => x.ref)];
		if (t === 0) joins = [];

		// Copy candidates: the group key, else the family key (it threads the family together), then a mix.
		const lead = agg ? groupKeyOf(parents)!.name : family.mainKey;
		const keyFirst = allRefs.filter((r) => r.rel === parents[0] && r.col.name === lead);
		const others = rng.sample(allRefs.filter((r) => !keyFirst.includes(r)), allRefs.length);
		const names = new NameSet();
		const outputs = this.assignOutputs({
			candidates: [...keyFirst, ...others],
			o,
			d,
			agg,
			names,
			qualify: true,
			rename: () => null,
			copyShare: this.wantedCopyShare(),
			staging: false,
			literalHint: family.domain
		});
		model.columns = outputs.map((x) => ({ name: x.name, type: x.type }));
		const written = this.emit(model.uniqueId, outputs, scans);
		model.rawCode = this.renderModelSql(plan, parents, aliasOf, outputs, joins, filters, agg ? groupKeyOf(parents) : null);
		if (model.materialized === 'incremental') model.uniqueKey = outputs[0]?.name ?? null;
		if (model.materialized === 'incremental' && model.uniqueKey) model.configCall.unique_key = model.uniqueKey;
		const parentNames = parents.map((p) => p.name).join(', ');
		const entity = this.entities.get(parents[0].uniqueId)!.replace(/_/g, ' ');
		model.description = agg
			? `${entity} rolled up to one row per ${family.mainKey.replace(/_/g, ' ')}, from ${parentNames}.`
			: `${entity}${parents.length > 1 ? ` joined with ${parents.slice(1).map((p) => p.name).join(', ')}` : ''}${filters.length ? ', filtered' : ''}. Built from ${parentNames}.`;
		return written;
	}

	private renderModelSql(
		plan: Plan,
		parents: RelationSpec[],
		aliasOf: Map<string, string>,
		outputs: Output[],
		joins: Join[],
		filters: Filter[],
		groupKey: ColumnSpec | null
	): string {
		const model = plan.model;
		const rng = this.rng;
		const parts: string[] = [];
		const call = model.configCall;
		if (Object.keys(call).length > 0 || model.materialized === 'incremental') {
			const args = Object.entries(call).map(([k, v]) => `${k}='${String(v)}'`);
			parts.push(args.length > 2 ? `{{\n    config(\n        ${args.join(',\n        ')}\n    )\n}}\n\n` : `{{ config(${args.join(', ')}) }}\n\n`);
		}
		if (rng.chance(0.3)) parts.push(`-- ${plan.family.domain}: ${model.name.replace(/_/g, ' ')}.\n-- Owned by ${String(model.meta.owner ?? 'analytics')}; see the YAML for column docs.\n\n`);
		const ctes = parents.map((p, i) => {
			const refExpr = p.resourceType === 'source' ? `{{ source('${p.sourceName}', '${p.name}') }}` : `{{ ref('${p.name}') }}`;
			let incremental = '';
			if (i === 0 && model.materialized === 'incremental') {
				const ts = p.columns.find((c) => catOf(c) === 'ts');
				const key = outputs[0]?.inputs[0]?.col.name ?? p.columns[0].name;
				incremental = ts
					? `\n\n    {% if is_incremental() %}\n    where ${ts.name} > (select max(${ts.name}) from {{ this }})\n    {% endif %}`
					: `\n\n    {% if is_incremental() %}\n    where ${key} not in (select ${outputs[0]?.name ?? key} from {{ this }})\n    {% endif %}`;
			}
			return `${aliasOf.get(p.uniqueId)} as (\n\n    select * from ${refExpr}${incremental}\n\n)`;
		});
		const p0 = aliasOf.get(parents[0].uniqueId)!;
		const joinSql = joins
			.map((j) => `\n    ${this.rng.chance(0.75) ? 'left join' : 'inner join'} ${j.right.alias}\n        on ${j.left.alias}.${j.left.col.name} = ${j.right.alias}.${j.right.col.name}`)
			.join('');
		const where = filters.length > 0 ? `\n    where ${filters.map((x) => x.expr).join('\n      and ')}` : '';
		const group = groupKey ? `\n    group by ${p0}.${groupKey.name}` : '';
		const select = outputs.map((x) => x.expr).join(',\n        ');
		parts.push(`with\n\n${ctes.join(',\n\n')},\n\nfinal as (\n\n    select\n        ${select}\n\n    from ${p0}${joinSql}${where}${group}\n\n)\n\nselect * from final\n`);
		return parts.join('');
	}

	/**
	 * Output columns for o outputs with d direct inputs in all: copies (one input) and mods (one
	 * or more), or literals (none) when d < o. The copy/mod split follows the running share.
	 */
	private assignOutputs(a: {
		candidates: Ref[];
		o: number;
		d: number;
		agg: boolean;
		names: NameSet;
		qualify: boolean;
		rename: (c: ColumnSpec) => string | null;
		copyShare: number;
		staging: boolean;
		literalHint?: string;
	}): Output[] {
		const rng = this.rng;
		const q = (r: Ref) => (a.qualify ? `${r.alias}.${r.col.name}` : r.col.name);
		const withInputs = Math.min(a.o, a.d);
		const literals = a.o - withInputs;
		const extra = a.d - withInputs;
		let mods = clamp(Math.round(withInputs - a.copyShare * a.d), Math.min(withInputs, Math.ceil(extra / 2)), withInputs);
		// Keep the first output a copy (the key) when the mods can still take the extra inputs.
		if (mods === withInputs && withInputs > 1 && extra <= 2 * (withInputs - 1)) mods = withInputs - 1;
		const copies = withInputs - mods;
		const outputs: Output[] = [];
		const pool = a.candidates;
		let taken = 0;
		const copied = new Set<Ref>();
		const addCopy = (r: Ref, name: string) => {
			name = a.names.take(name);
			const isGroupKey = a.agg && taken === 0;
			const body = a.agg && !isGroupKey ? `${rng.chance(0.5) ? 'max' : 'min'}(${q(r)})` : q(r);
			const expr = body === name || (a.qualify && !a.agg && name === r.col.name) ? body : `${body} as ${name}`;
			outputs.push({ name, type: r.col.type, kind: 'copy', inputs: [r], expr });
			copied.add(r);
			taken++;
		};
		// Columns whose name is still free first; then, for non-keys, the same column under its parent's prefix.
		for (const r of pool) {
			if (taken >= copies) break;
			const name = a.rename(r.col) ?? r.col.name;
			if (!a.names.has(name)) addCopy(r, name);
		}
		for (const r of pool) {
			if (taken >= copies) break;
			if (copied.has(r) || catOf(r.col) === 'key') continue;
			addCopy(r, `${r.alias}_${rootOf(r.col.name)}`);
		}
		const modCount = withInputs - taken;
		const perMod = Array.from({ length: modCount }, () => 1);
		for (let i = 0; i < extra; i++) perMod[i % Math.max(1, modCount)]++;
		for (let m = 0; m < modCount; m++) {
			const first = a.staging || rng.chance(0.5) ? pool[(m * 7 + 3) % pool.length] : rng.pick(pool);
			const inputs = [first];
			const sameRel = pool.filter((r) => r.rel === first.rel && r !== first);
			const compatible = sameRel.filter((r) => catOf(r.col) === catOf(first.col));
			const order = [...rng.sample(compatible, compatible.length), ...rng.sample(sameRel, sameRel.length), ...rng.sample(pool, pool.length)];
			for (const r of order) {
				if (inputs.length >= perMod[m]) break;
				if (!inputs.includes(r)) inputs.push(r);
			}
			const { expr, type, name } = modExpression(inputs, a.agg, q, rng);
			const finalName = a.names.take(name);
			outputs.push({ name: finalName, type, kind: 'mod', inputs, expr: `${expr} as ${finalName}` });
		}
		for (let l = 0; l < literals; l++) {
			const options = [
				{ name: '_loaded_at', type: 'TIMESTAMP', expr: 'current_timestamp' },
				{ name: 'source_domain', type: 'VARCHAR', expr: `'${a.literalHint ?? 'reference'}'` },
				{ name: 'record_version', type: 'INTEGER', expr: '1' },
				{ name: 'is_current', type: 'BOOLEAN', expr: 'true' }
			];
			const pick = options[l % options.length];
			const name = a.names.take(pick.name);
			outputs.push({ name, type: pick.type, kind: 'literal', inputs: [], expr: `${pick.expr} as ${name}` });
		}
		return outputs;
	}

	// Tests -------------------------------------------------------------------------------------

	private planTests(): TestSpec[] {
		const rng = this.rng;
		const tests: TestSpec[] = [];
		const declare = (rel: RelationSpec, column: string) => {
			const c = rel.columns.find((x) => x.name === column);
			if (c && c.description === undefined) c.description = '';
		};
		for (const family of this.families) {
			for (const source of family.roots) {
				if (source.resourceType !== 'source' || !rng.chance(0.4)) continue;
				for (const testName of ['unique', 'not_null']) tests.push(genericTest({ packageName: source.packageName, testName, target: source, column: 'id', ymlPath: source.ymlPath }));
				declare(source, 'id');
			}
			for (const plan of [...family.staging, ...family.intermediates, ...family.marts]) {
				const model = plan.model;
				const documented = rng.chance(0.6);
				if (documented) {
					model.columns.forEach((c) => {
						c.description = describeColumn(c.name);
					});
				}
				if (model.materialized === 'ephemeral' || model.columns.length === 0 || !rng.chance(0.5)) continue;
				const yml = model.ymlPath!;
				const pkg = model.packageName;
				const key = model.columns[0].name;
				tests.push(genericTest({ packageName: pkg, testName: 'not_null', target: model, column: key, ymlPath: yml }));
				if (plan.agg || plan.layer === 'staging' || rng.chance(0.5)) tests.push(genericTest({ packageName: pkg, testName: 'unique', target: model, column: key, ymlPath: yml }));
				declare(model, key);
				const status = model.columns.find((c) => c.type === 'VARCHAR' && /status|stage|type|tier|priority|channel/.test(c.name));
				if (status && rng.chance(0.5)) {
					const severity = rng.chance(0.4) ? 'warn' : 'ERROR';
					tests.push(
						genericTest({
							packageName: pkg,
							testName: 'accepted_values',
							target: model,
							column: status.name,
							args: { values: ['active', 'pending', 'closed', 'canceled'].slice(0, rng.int(2, 4)) },
							severity,
							ymlPath: yml,
							failures: rng.int(1, 40)
						})
					);
					declare(model, status.name);
				}
				const parent = this.byId.get(model.parents[0]);
				if (parent && parent.resourceType === 'model' && parent.materialized !== 'ephemeral' && rng.chance(0.25) && parent.columns.some((c) => c.name === key)) {
					tests.push(
						genericTest({
							packageName: pkg,
							testName: 'relationships',
							target: model,
							column: key,
							args: { to: `ref('${parent.name}')`, field: key },
							otherParents: [parent.uniqueId],
							severity: rng.chance(0.3) ? 'warn' : 'ERROR',
							ymlPath: yml,
							failures: rng.int(1, 12)
						})
					);
				}
			}
		}
		const marts = this.families.flatMap((f) => f.marts).filter((p) => p.model.materialized !== 'ephemeral' && p.model.columns.length > 1);
		const singular = Math.max(1, Math.round(this.opts.models / 100));
		for (const plan of rng.sample(marts, singular)) {
			const m = plan.model;
			const col = m.columns[1].name;
			tests.push(
				singularTest({
					packageName: this.project,
					name: `assert_${m.name}_${col}_is_set`.slice(0, 60),
					severity: rng.chance(0.3) ? 'warn' : 'ERROR',
					parents: [m.uniqueId],
					failures: rng.int(1, 9),
					rawCode: `-- ${col} must be set on every row of ${m.name} once it has a ${m.columns[0].name}.\nselect\n    ${m.columns[0].name},\n    ${col}\n\nfrom {{ ref('${m.name}') }}\nwhere ${m.columns[0].name} is not null\n  and ${col} is null\n`
				})
			);
		}
		for (const seed of this.seeds) {
			if (!rng.chance(0.5)) continue;
			tests.push(genericTest({ packageName: this.project, testName: 'unique', target: seed, column: seed.columns[0].name, ymlPath: seed.ymlPath! }));
		}
		return tests;
	}

	/** A few documented columns the SQL no longer produces: YAML rots like this in real projects. */
	private addStaleDocs() {
		const documented = this.allPlans().filter((p) => p.model.columns.some((c) => c.description));
		for (const plan of documented.filter((_, i) => i % 50 === 7)) {
			plan.model.columns.push({ name: 'legacy_status', type: 'VARCHAR', description: 'Deprecated: replaced by status.', yamlOnly: true });
		}
	}

	// Failures ----------------------------------------------------------------------------------

	private planFailures(tests: TestSpec[]): Map<string, PlannedOutcome> {
		const rng = this.rng;
		const out = new Map<string, PlannedOutcome>();
		const children = new Map<string, number>();
		for (const p of this.allPlans()) for (const parent of p.model.parents) children.set(parent, (children.get(parent) ?? 0) + 1);
		const candidates = this.allPlans().filter((p) => p.model.materialized !== 'ephemeral' && (children.get(p.model.uniqueId) ?? 0) > 0);
		for (const p of rng.sample(candidates, Math.max(1, Math.round(this.opts.models / 100)))) out.set(p.model.uniqueId, 'error');
		const warnable = tests.filter((t) => t.severity === 'warn');
		for (const t of rng.sample(warnable, Math.max(1, Math.round(warnable.length * 0.3)))) out.set(t.uniqueId, 'warn');
		const failable = tests.filter((t) => t.severity === 'ERROR' && t.failures > 0);
		for (const t of rng.sample(failable, Math.max(1, Math.round(failable.length * 0.05)))) out.set(t.uniqueId, 'fail');
		return out;
	}
}

function filterExpr(r: Ref, rng: Rng): string {
	const col = `${r.alias}.${r.col.name}`;
	switch (catOf(r.col)) {
		case 'bool':
			return /deleted|test|archived/.test(r.col.name) ? `not ${col}` : `${col}`;
		case 'str':
			return rng.chance(0.5) ? `${col} is not null` : `${col} != 'test'`;
		case 'ts':
			return `${col} >= '2020-01-01'`;
		case 'date':
			return `${col} >= date '2020-01-01'`;
		case 'num':
			return rng.chance(0.5) ? `${col} > 0` : `${col} is not null`;
		default:
			return `${col} is not null`;
	}
}

/** The business word(s) under a derived column's name: `distinct_reason_clean_2_count` → `reason`. */
function rootOf(name: string): string {
	let r = name;
	for (let i = 0; i < 6; i++) {
		const before = r;
		r = r
			.replace(/_\d+$/, '')
			.replace(/^(total|avg|distinct|hours|days|any)_/, '')
			.replace(/_(count|hash|normalized|clean|key|rounded|or_zero|flag|month|date|sequence|coalesced|sum|at|cents)$/, '')
			.replace(/_net_of_.*$/, '')
			.replace(/_to_.*$/, '');
		if (r === before) break;
	}
	const tokens = (r || name).split('_');
	return tokens.slice(-2).join('_');
}

function stem(name: string): string {
	return rootOf(name.replace(/_id$/, '')) || name;
}

/** An expression over the inputs, its DuckDB type and a column name for it. */
function modExpression(inputs: Ref[], agg: boolean, q: (r: Ref) => string, rng: Rng): { expr: string; type: string; name: string } {
	const [a] = inputs;
	const A = q(a);
	const an = a.col.name;
	if (inputs.length === 1) {
		const c = catOf(a.col);
		if (agg) {
			switch (c) {
				case 'num':
					return rng.chance(0.7) ? { expr: `sum(${A})`, type: 'DECIMAL(38,2)', name: `total_${stem(an)}` } : { expr: `avg(${A})`, type: 'DOUBLE', name: `avg_${stem(an)}` };
				case 'bool':
					return { expr: `sum(case when ${A} then 1 else 0 end)`, type: 'HUGEINT', name: `${stem(an)}_count` };
				case 'ts':
				case 'date':
					return { expr: `count(${A})`, type: 'BIGINT', name: `${stem(an)}_count` };
				default:
					return { expr: `count(distinct ${A})`, type: 'BIGINT', name: `distinct_${stem(an)}_count` };
			}
		}
		switch (c) {
			case 'num':
				return an.endsWith('_cents')
					? { expr: `${A} / 100.0`, type: 'DOUBLE', name: an.replace(/_cents$/, '') }
					: rng.chance(0.5)
						? { expr: `round(${A}, 2)`, type: 'DECIMAL(18,2)', name: `${stem(an)}_rounded` }
						: { expr: `coalesce(${A}, 0)`, type: a.col.type, name: `${stem(an)}_or_zero` };
			case 'str':
				return an.includes('email') || rng.chance(0.5)
					? { expr: `lower(trim(${A}))`, type: 'VARCHAR', name: `${stem(an)}_normalized` }
					: { expr: `nullif(trim(${A}), '')`, type: 'VARCHAR', name: `${stem(an)}_clean` };
			case 'ts':
				return rng.chance(0.5)
					? { expr: `cast(${A} as date)`, type: 'DATE', name: `${stem(an)}_date` }
					: { expr: `date_trunc('month', ${A})`, type: 'TIMESTAMP', name: `${stem(an)}_month` };
			case 'date':
				return { expr: `date_trunc('month', ${A})`, type: 'DATE', name: `${stem(an)}_month` };
			case 'bool':
				return { expr: `coalesce(${A}, false)`, type: 'BOOLEAN', name: `${stem(an)}_flag` };
			default:
				return { expr: `md5(cast(${A} as varchar))`, type: 'VARCHAR', name: `${stem(an)}_hash` };
		}
	}
	const [, b] = inputs;
	const B = q(b);
	const cats = inputs.map((r) => catOf(r.col));
	const label = [...new Set(inputs.map((r) => stem(r.col.name)))].slice(0, 2).join('_');
	if (agg && inputs.length === 2) {
		if (cats[0] === 'num' && cats[1] === 'num') return { expr: `sum(${A} * ${B})`, type: 'DOUBLE', name: `total_${label}` };
		if (cats[0] === 'num' && cats[1] === 'bool') return { expr: `sum(case when ${B} then ${A} else 0 end)`, type: 'DOUBLE', name: `${stem(b.col.name)}_${stem(an)}` };
		if (cats[1] === 'bool') return { expr: `count(distinct ${A}) filter (where ${B})`, type: 'BIGINT', name: `${stem(b.col.name)}_${stem(an)}_count` };
		if ((cats[0] === 'ts' || cats[0] === 'date') && (cats[1] === 'ts' || cats[1] === 'date'))
			return { expr: `datediff('day', min(${A}), max(${B}))`, type: 'BIGINT', name: `days_${stem(an)}_to_${stem(b.col.name)}` };
	}
	if (agg) return { expr: `count(distinct concat_ws('|', ${inputs.map(q).join(', ')}))`, type: 'BIGINT', name: `distinct_${label}_count` };
	if (inputs.length === 2) {
		if (cats[0] === 'num' && cats[1] === 'num') return { expr: `${A} - ${B}`, type: 'DOUBLE', name: `${stem(an)}_net_of_${stem(b.col.name)}` };
		if (cats[0] === 'ts' && cats[1] === 'ts') return { expr: `datediff('hour', ${A}, ${B})`, type: 'BIGINT', name: `hours_${stem(an)}_to_${stem(b.col.name)}` };
		if (cats[1] === 'ts' || cats[1] === 'date') return { expr: `row_number() over (partition by ${A} order by ${B})`, type: 'BIGINT', name: `${stem(an)}_sequence` };
		if (cats[0] === 'str' && cats[1] === 'str') return { expr: `concat_ws(' ', ${A}, ${B})`, type: 'VARCHAR', name: `${stem(an)}_${stem(b.col.name)}` };
	}
	if (cats.every((c) => c === 'num')) return { expr: inputs.map(q).join(' + '), type: 'DOUBLE', name: `${label}_sum` };
	if (cats.every((c) => c === cats[0]) && rng.chance(0.5)) return { expr: `coalesce(${inputs.map(q).join(', ')})`, type: a.col.type, name: `${label}_coalesced` };
	return { expr: `md5(concat_ws('|', ${inputs.map(q).join(', ')}))`, type: 'VARCHAR', name: `${label}_key` };
}

function describeColumn(name: string): string {
	if (name.endsWith('_id')) return `Identifier of the ${name.slice(0, -3).replace(/_/g, ' ')}.`;
	if (name.endsWith('_at')) return `When the ${name.slice(0, -3).replace(/_/g, ' ')} happened (UTC).`;
	if (name.startsWith('total_')) return `Sum of ${name.slice(6).replace(/_/g, ' ')}.`;
	if (name.endsWith('_count')) return `Number of ${name.slice(0, -6).replace(/_/g, ' ')}.`;
	if (name.startsWith('is_')) return `Whether the row is ${name.slice(3).replace(/_/g, ' ')}.`;
	return `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, ' ')}.`;
}
