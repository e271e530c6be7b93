// The OpenLineage RunEvent (spec 2-0-2) as Tributary writes it: the subset of the spec's fields
// and facets the export fills. Shared with the browser like every wire type.

export type RunEventType = 'START' | 'RUNNING' | 'COMPLETE' | 'ABORT' | 'FAIL' | 'OTHER';

export interface BaseFacet {
	_producer: string;
	_schemaURL: string;
}

export interface Transformation {
	type: 'DIRECT' | 'INDIRECT';
	subtype?: 'IDENTITY' | 'TRANSFORMATION' | 'AGGREGATION' | 'JOIN' | 'FILTER' | 'GROUP_BY' | 'SORT' | 'WINDOW';
	description?: string;
	masking?: boolean;
}

export interface InputField {
	namespace: string;
	name: string;
	field: string;
	transformations: Transformation[];
}

export interface ColumnLineageFacet extends BaseFacet {
	fields: Record<string, { inputFields: InputField[] }>;
	dataset?: InputField[];
}

export interface SchemaFacet extends BaseFacet {
	fields: { name: string; type?: string; ordinal_position?: number }[];
}

export interface OlDataset {
	namespace: string;
	name: string;
	facets?: { schema?: SchemaFacet; columnLineage?: ColumnLineageFacet };
}

export interface OlJob {
	namespace: string;
	name: string;
	facets?: {
		jobType?: BaseFacet & { processingType: string; integration: string; jobType: string };
		sql?: BaseFacet & { query: string; dialect?: string };
	};
}

export interface OlRun {
	runId: string;
	facets?: {
		parent?: BaseFacet & { run: { runId: string }; job: { namespace: string; name: string } };
		errorMessage?: BaseFacet & { message: string; programmingLanguage: string };
	};
}

export interface RunEvent {
	eventType: RunEventType;
	eventTime: string;
	producer: string;
	schemaURL: string;
	run: OlRun;
	job: OlJob;
	inputs: OlDataset[];
	outputs: OlDataset[];
}
