// The official OpenLineage JSON Schemas (spec 2-0-2 and its facets, draft 2020-12), read from the
// folder TRIBUTARY_OPENLINEAGE_SCHEMAS names (default ../shared/reference/openlineage beside the
// checkout) and compiled once per process with ajv, each file registered under its own `$id` so
// the cross-references resolve. An event is checked against the definition of its kind, then each
// facet whose key names a facet schema against that schema; other facets only against the core's
// base facet (kept, never refused).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ApiError } from '../api-error';

const CORE = 'https://openlineage.io/spec/2-0-2/OpenLineage.json';

export function openLineageSchemaDir(): string {
	return path.resolve(process.env.TRIBUTARY_OPENLINEAGE_SCHEMAS ?? path.join(process.cwd(), '..', 'shared', 'reference', 'openlineage'));
}

export interface CompiledSchemas {
	runEvent: ValidateFunction;
	datasetEvent: ValidateFunction;
	jobEvent: ValidateFunction;
	/** `<run|job|dataset>:<facet key>` (`dataset:columnLineage`, ...) → the validator of `{ [key]: facet }`. */
	facets: Map<string, ValidateFunction>;
}

let compiled: { dir: string; schemas: CompiledSchemas } | null = null;

/** The compiled schemas of the configured folder; 503 naming the variable when it holds none. */
export function openLineageSchemas(): CompiledSchemas {
	const dir = openLineageSchemaDir();
	if (compiled?.dir === dir) return compiled.schemas;
	const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('tests__')) : [];
	const ajv = new Ajv2020({ strict: false, allErrors: false });
	addFormats(ajv);
	const facetIds = new Map<string, string>();
	const containerOf = (defs: Record<string, unknown>, key: string, ref: unknown): string | null => {
		const name = typeof ref === 'string' ? ref.replace(/^#\/\$defs\//, '') : '';
		if (!(name in defs)) return null;
		const kind = /(Run|Job|Dataset)Facet$/.exec(name)?.[1]?.toLowerCase();
		return kind ? `${kind}:${key}` : null;
	};
	for (const f of files) {
		const schema = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
		if (typeof schema?.$id !== 'string') continue;
		ajv.addSchema(schema, schema.$id);
		// A facet file's root has one property: the facet's key in a facets object.
		if (schema.$id === CORE) continue;
		for (const [key, prop] of Object.entries<{ $ref?: unknown }>(schema.properties ?? {})) {
			const at = containerOf(schema.$defs ?? {}, key, prop?.$ref);
			if (at) facetIds.set(at, schema.$id);
		}
	}
	const def = (name: string) => ajv.getSchema(`${CORE}#/$defs/${name}`);
	const runEvent = ajv.getSchema(CORE) ? def('RunEvent') : undefined;
	if (!runEvent) {
		throw new ApiError(503, `the OpenLineage schemas are not installed: no OpenLineage.json (spec 2-0-2) in ${dir}; set TRIBUTARY_OPENLINEAGE_SCHEMAS to the folder holding the official schemas`);
	}
	const facets = new Map<string, ValidateFunction>();
	for (const [key, id] of facetIds) facets.set(key, ajv.getSchema(id)!);
	const schemas = { runEvent, datasetEvent: def('DatasetEvent')!, jobEvent: def('JobEvent')!, facets };
	compiled = { dir, schemas };
	return schemas;
}

/** An ajv instance path (`/inputs/0/name`) as a JSON path (`$.inputs[0].name`), under `base`. */
export function jsonPath(base: string, pointer: string): string {
	let out = base;
	for (const raw of pointer.split('/').slice(1)) {
		const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
		out += /^\d+$/.test(seg) ? `[${seg}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
	}
	return out;
}

/** One schema error as `<json path>: <message>`, the way a 400 names it. */
export function describeSchemaError(base: string, e: ErrorObject): string {
	let where = jsonPath(base, e.instancePath);
	let message = e.message ?? 'is not valid';
	if (e.keyword === 'required') {
		where += `.${(e.params as { missingProperty: string }).missingProperty}`;
		message = 'is required';
	} else if (e.keyword === 'enum') {
		message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
	} else if (e.keyword === 'format') {
		message = `must be a ${(e.params as { format: string }).format}`;
	}
	return `${where}: ${message}`;
}
