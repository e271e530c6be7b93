// The builders the hand-written demo projects (the coffee shop and the roastery) declare their
// sources, models and seeds with: one project's naming and defaults in one place, so a project
// file holds only its own resources, SQL and lineage.
import type { Input } from './lineage-builder';
import type { ColumnSpec, ModelSpec, SeedSpec, SourceSpec } from './spec';

export interface HandWrittenProject {
	project: string;
	database: string;
	/** Where the project's models and seeds are built. */
	schema: string;
	/** The one source of the project: its name in `source()`, its schema and what loads it. */
	source: { name: string; schema: string; description: string; loader: string };
}

/** A column in SQL order: with a description it is declared in YAML, without one it exists only in the warehouse (and the catalog). */
export type Col = [name: string, type: string, description?: string];

export type ModelFolder = 'staging' | 'intermediate' | 'marts';

/** One lineage output column and the inputs it reads, for `modelEdges`. */
export const out = (name: string, ...inputs: Input[][]): [string, Input[]] => [name, inputs.flat(1)];

export function handWrittenBuilders(p: HandWrittenProject) {
	const srcId = (name: string) => `source.${p.project}.${p.source.name}.${name}`;
	const modelId = (name: string) => `model.${p.project}.${name}`;
	const seedId = (name: string) => `seed.${p.project}.${name}`;

	const cols = (list: Col[], tags: Record<string, string[]> = {}): ColumnSpec[] =>
		list.map(([name, type, description]) => ({
			name,
			type,
			...(description !== undefined ? { description } : {}),
			...(tags[name] ? { tags: tags[name] } : {})
		}));

	function source(name: string, description: string, columns: ColumnSpec[], extra: Partial<SourceSpec> = {}): SourceSpec {
		return {
			resourceType: 'source',
			uniqueId: srcId(name),
			name,
			packageName: p.project,
			database: p.database,
			schema: p.source.schema,
			alias: name,
			description,
			columns,
			tags: [],
			meta: {},
			sourceName: p.source.name,
			sourceDescription: p.source.description,
			loader: p.source.loader,
			ymlPath: 'models/staging/sources.yml',
			loadedAtField: null,
			freshness: null,
			...extra
		};
	}

	function model(
		name: string,
		folder: ModelFolder,
		spec: Pick<ModelSpec, 'description' | 'columns' | 'rawCode' | 'parents'> & Partial<ModelSpec>
	): ModelSpec {
		return {
			resourceType: 'model',
			uniqueId: modelId(name),
			name,
			packageName: p.project,
			database: p.database,
			schema: p.schema,
			alias: name,
			tags: [],
			meta: {},
			filePath: `models/${folder}/${name}.sql`,
			ymlPath: `models/${folder}/schema.yml`,
			rowCount: null,
			materialized: folder === 'marts' ? 'table' : 'view',
			incrementalStrategy: null,
			uniqueKey: null,
			onSchemaChange: 'ignore',
			configCall: {},
			...spec
		};
	}

	function seed(name: string, description: string, csv: string, columns: ColumnSpec[]): SeedSpec {
		return {
			resourceType: 'seed',
			uniqueId: seedId(name),
			name,
			packageName: p.project,
			database: p.database,
			schema: p.schema,
			alias: name,
			description,
			columns,
			tags: [],
			meta: {},
			filePath: `seeds/${name}.csv`,
			ymlPath: 'seeds/schema.yml',
			rowCount: csv.trim().split('\n').length - 1,
			csv
		};
	}

	return { srcId, modelId, seedId, cols, source, model, seed };
}
