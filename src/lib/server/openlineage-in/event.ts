// One received OpenLineage event, parsed and checked before anything is stored: JSON, nesting,
// text Postgres can hold, the official schema of its kind, the facets the schemas know, and the
// lengths of the identities Tributary keys rows by. Every refusal is a 400 naming the JSON path.
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv/dist/2020';
import { badRequest } from '../api-error';
import { describeSchemaError, openLineageSchemas } from './schemas';

/** Deeper nesting is refused: facets are shallow, and Postgres's jsonb parser recurses. */
export const MAX_EVENT_DEPTH = 64;
/** Bytes (UTF-8) of a namespace, and of a job or dataset name: they key rows and index entries. */
export const MAX_NAMESPACE_BYTES = 256;
export const MAX_NAME_BYTES = 1024;

export type EventKind = 'run' | 'job' | 'dataset';
export type OlEventType = 'START' | 'RUNNING' | 'COMPLETE' | 'ABORT' | 'FAIL' | 'OTHER';

export interface ReceivedDataset {
	namespace: string;
	name: string;
	facets?: Record<string, unknown>;
}

export interface ReceivedEvent {
	kind: EventKind;
	/** null: a RunEvent without one (the schema allows it), or a job or dataset event. */
	eventType: OlEventType | null;
	eventTime: Date;
	/** Lowercase, without a `urn:uuid:` prefix. */
	runId: string | null;
	runFacets: Record<string, unknown>;
	job: { namespace: string; name: string; facets: Record<string, unknown> } | null;
	inputs: ReceivedDataset[];
	outputs: ReceivedDataset[];
	dataset: ReceivedDataset | null;
	/** The event as sent (parsed). */
	body: Record<string, unknown>;
	/** SHA-256 of its canonical JSON (keys sorted): the same event sent twice has the same key. */
	key: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function pathOf(parts: readonly (string | number)[]): string {
	let out = '$';
	for (const p of parts) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p.length > 40 ? `${p.slice(0, 40)}…` : p)}]`;
	return out;
}

/**
 * Walks the parsed body once, without recursion: nesting over MAX_EVENT_DEPTH, a NUL character
 * or a lone surrogate (text Postgres refuses) anywhere, in a key or a value, is a 400 naming where.
 */
function checkShape(root: unknown): void {
	// Each entry keeps its parent and its step, not a copy of its path: the path is spelled only
	// for a refusal, and an accepted event (most of them) allocates one entry per value.
	type Entry = { v: unknown; parent: Entry | null; step: string | number; depth: number };
	const pathTo = (e: Entry | null): (string | number)[] => {
		const steps: (string | number)[] = [];
		for (let x = e; x && x.parent; x = x.parent) steps.push(x.step);
		return steps.reverse();
	};
	const text = (s: string, at: () => (string | number)[]) => {
		if (s.includes('\u0000')) throw badRequest(`${pathOf(at())}: contains a NUL character, which cannot be stored`);
		if (!s.isWellFormed()) throw badRequest(`${pathOf(at())}: contains an unpaired UTF-16 surrogate, which cannot be stored`);
	};
	const stack: Entry[] = [{ v: root, parent: null, step: '', depth: 0 }];
	while (stack.length) {
		const e = stack.pop()!;
		const v = e.v;
		if (typeof v === 'string') text(v, () => pathTo(e));
		else if (v && typeof v === 'object') {
			if (e.depth >= MAX_EVENT_DEPTH) throw badRequest(`${pathOf(pathTo(e).slice(0, 8))}…: nested deeper than ${MAX_EVENT_DEPTH} levels`);
			const depth = e.depth + 1;
			if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push({ v: v[i], parent: e, step: i, depth });
			else
				for (const k in v) {
					const child: Entry = { v: (v as Record<string, unknown>)[k], parent: e, step: k, depth };
					text(k, () => pathTo(child));
					stack.push(child);
				}
		}
	}
}

function canonical(v: unknown): string {
	if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
	if (isObject(v)) {
		return `{${Object.keys(v)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
			.join(',')}}`;
	}
	return JSON.stringify(v) ?? 'null';
}

function requireBytes(where: string, s: string, max: number): void {
	const n = Buffer.byteLength(s);
	if (n > max) throw badRequest(`${where}: ${n.toLocaleString('en-US')} bytes is over the limit of ${max.toLocaleString('en-US')}`);
	if (s.trim() === '') throw badRequest(`${where}: must not be empty`);
}

function schemaCheck(validate: ValidateFunction, value: unknown, base: string): void {
	if (!validate(value)) throw badRequest(describeSchemaError(base, validate.errors![0]));
}

function checkFacets(container: 'run' | 'job' | 'dataset', facets: unknown, base: string): void {
	if (!isObject(facets)) return;
	const known = openLineageSchemas().facets;
	for (const [key, value] of Object.entries(facets)) {
		const validate = known.get(`${container}:${key}`);
		// A facet the schemas do not know is kept as it came; `_deleted` removes one, with no body.
		if (!validate || (isObject(value) && value._deleted === true)) continue;
		if (!validate({ [key]: value })) {
			const e = validate.errors![0];
			throw badRequest(describeSchemaError(base, e));
		}
	}
}

function datasetsOf(list: unknown, where: string): ReceivedDataset[] {
	if (!Array.isArray(list)) return [];
	return list.map((d, i) => datasetOf(d, `$.${where}[${i}]`));
}

function datasetOf(d: any, at: string): ReceivedDataset {
	{
		requireBytes(`${at}.namespace`, d.namespace, MAX_NAMESPACE_BYTES);
		requireBytes(`${at}.name`, d.name, MAX_NAME_BYTES);
		checkFacets('dataset', d.facets, `${at}.facets`);
		// Input and output facets are dataset facets too (dataQualityMetrics, outputStatistics, ...).
		checkFacets('dataset', d.inputFacets, `${at}.inputFacets`);
		checkFacets('dataset', d.outputFacets, `${at}.outputFacets`);
		return { namespace: d.namespace, name: d.name, facets: isObject(d.facets) ? d.facets : undefined };
	}
}

/** Parses and checks one event; a 400 naming the JSON path for anything wrong. Nothing is stored here. */
export function parseEvent(text: string): ReceivedEvent {
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch (e) {
		throw badRequest(`the body is not JSON: ${(e as Error).message}`);
	}
	if (!isObject(body)) throw badRequest('$: an OpenLineage event is a JSON object');
	checkShape(body);
	const schemas = openLineageSchemas();
	let kind: EventKind;
	if ('run' in body) kind = 'run';
	else if ('dataset' in body) kind = 'dataset';
	else if ('job' in body) kind = 'job';
	else throw badRequest('$: an event has run and job (a RunEvent), dataset (a DatasetEvent) or job (a JobEvent)');
	if (kind === 'run') {
		if (!('job' in body)) throw badRequest('$.job: is required');
		schemaCheck(schemas.runEvent, body, '$');
	} else schemaCheck(kind === 'dataset' ? schemas.datasetEvent : schemas.jobEvent, body, '$');
	const b = body as Record<string, any>;
	const eventTime = new Date(b.eventTime);
	if (Number.isNaN(eventTime.getTime())) throw badRequest('$.eventTime: must be a date-time');
	let job: ReceivedEvent['job'] = null;
	if (kind !== 'dataset') {
		requireBytes('$.job.namespace', b.job.namespace, MAX_NAMESPACE_BYTES);
		requireBytes('$.job.name', b.job.name, MAX_NAME_BYTES);
		checkFacets('job', b.job.facets, '$.job.facets');
		job = { namespace: b.job.namespace, name: b.job.name, facets: isObject(b.job.facets) ? b.job.facets : {} };
	}
	let runId: string | null = null;
	let runFacets: Record<string, unknown> = {};
	if (kind === 'run') {
		runId = String(b.run.runId).toLowerCase().replace(/^urn:uuid:/, '');
		checkFacets('run', b.run.facets, '$.run.facets');
		runFacets = isObject(b.run.facets) ? b.run.facets : {};
	}
	let dataset: ReceivedDataset | null = null;
	if (kind === 'dataset') dataset = datasetOf(b.dataset, '$.dataset');
	return {
		kind,
		eventType: kind === 'run' && typeof b.eventType === 'string' ? (b.eventType as OlEventType) : null,
		eventTime,
		runId,
		runFacets,
		job,
		inputs: kind === 'dataset' ? [] : datasetsOf(b.inputs, 'inputs'),
		outputs: kind === 'dataset' ? [] : datasetsOf(b.outputs, 'outputs'),
		dataset,
		body,
		key: createHash('sha256').update(canonical(body)).digest('hex')
	};
}
