// The official OpenLineage JSON Schemas (../shared/reference/openlineage, draft 2020-12), each
// registered with ajv under its own `$id` so their cross-references resolve. An event is checked
// against the RunEvent definition, and each facet it carries against its facet's own schema
// (the core schema only checks a facet's base fields).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { FIXTURES } from './fixtures';

export const OPENLINEAGE_REFERENCE = path.resolve(FIXTURES, '..', 'reference', 'openlineage');

const CORE = 'https://openlineage.io/spec/2-0-2/OpenLineage.json';

export interface OpenLineageValidator {
	/** Every schema error of one event (empty when it is valid), each naming where. */
	errors(event: unknown): string[];
	/** The facet schema ids the validator checked at least once. */
	checkedFacets: Set<string>;
}

export function openLineageValidator(): OpenLineageValidator {
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	addFormats(ajv);
	const facetSchemaOf = new Map<string, string>();
	for (const f of readdirSync(OPENLINEAGE_REFERENCE).filter((f) => f.endsWith('.json') && !f.startsWith('tests__'))) {
		const schema = JSON.parse(readFileSync(path.join(OPENLINEAGE_REFERENCE, f), 'utf8'));
		ajv.addSchema(schema, schema.$id);
		// A facet file's root has one property: the facet's key in a facets object.
		for (const key of Object.keys(schema.properties ?? {})) if (schema.$id !== CORE) facetSchemaOf.set(key, schema.$id);
	}
	const runEvent = ajv.getSchema(`${CORE}#/$defs/RunEvent`)!;
	const checkedFacets = new Set<string>();
	const facetErrors = (where: string, facets: Record<string, unknown> | undefined): string[] => {
		const out: string[] = [];
		for (const [key, value] of Object.entries(facets ?? {})) {
			const id = facetSchemaOf.get(key);
			if (!id) {
				out.push(`${where}.${key}: no official schema for this facet in the reference folder`);
				continue;
			}
			const url = (value as { _schemaURL?: string })._schemaURL ?? '';
			if (!url.startsWith(`${id}#`)) out.push(`${where}.${key}: _schemaURL ${url} is not ${id}`);
			const validate = ajv.getSchema(id)!;
			checkedFacets.add(id);
			if (!validate({ [key]: value })) out.push(...(validate.errors ?? []).map((e) => `${where}.${key}${e.instancePath}: ${e.message}`));
		}
		return out;
	};
	return {
		checkedFacets,
		errors(event: any): string[] {
			const out: string[] = [];
			if (!runEvent(event)) out.push(...(runEvent.errors ?? []).map((e) => `event${e.instancePath}: ${e.message}`));
			out.push(...facetErrors('run.facets', event?.run?.facets));
			out.push(...facetErrors('job.facets', event?.job?.facets));
			for (const [i, d] of (event?.inputs ?? []).entries()) out.push(...facetErrors(`inputs[${i}].facets`, d.facets));
			for (const [i, d] of (event?.outputs ?? []).entries()) out.push(...facetErrors(`outputs[${i}].facets`, d.facets));
			return out;
		}
	};
}

/** The events of an NDJSON answer (the in-process client parses a one-line answer as JSON). */
export function ndjsonEvents(body: unknown): any[] {
	if (body === null || body === '') return [];
	if (typeof body !== 'string') return [body];
	return body
		.split('\n')
		.filter((l) => l.trim() !== '')
		.map((l) => JSON.parse(l));
}
