// An OpenLineage run's events as they were received (`jobs/openlineage/{id}` for a run of kind
// `openlineage`). A viewer who may not read the job gets the shape: the identities, the event
// types and times, and only the facets that carry no authored content (the job type, the parent,
// the nominal time); the SQL, the error message and its stack trace, schemas, column lineage and
// every facet the schemas do not know are left out.
import type { JobAccess } from '../access';
import type { Database } from '../db';
import { getJobPayloadWithoutLog } from '../repo/jobs';
import { runAndChildEventBodies } from '../repo/openlineage-in';

const SHAPE_FACETS = new Set(['jobType', 'parent', 'nominalTime', 'processing_engine']);

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function shapeFacets(facets: unknown): Record<string, unknown> | undefined {
	if (!isObject(facets)) return undefined;
	const kept = Object.entries(facets).filter(([k]) => SHAPE_FACETS.has(k));
	return kept.length ? Object.fromEntries(kept) : undefined;
}

function shapeOf(e: Record<string, any>): Record<string, unknown> {
	const dataset = (d: Record<string, any>) => ({ namespace: d.namespace, name: d.name });
	const out: Record<string, unknown> = { eventTime: e.eventTime, producer: e.producer, schemaURL: e.schemaURL };
	if (e.eventType !== undefined) out.eventType = e.eventType;
	if (isObject(e.run)) out.run = { runId: e.run.runId, ...(shapeFacets(e.run.facets) ? { facets: shapeFacets(e.run.facets) } : {}) };
	if (isObject(e.job)) out.job = { namespace: e.job.namespace, name: e.job.name, ...(shapeFacets(e.job.facets) ? { facets: shapeFacets(e.job.facets) } : {}) };
	if (Array.isArray(e.inputs)) out.inputs = e.inputs.map(dataset);
	if (Array.isArray(e.outputs)) out.outputs = e.outputs.map(dataset);
	return out;
}

export async function receivedRunEvents(database: Database, a: JobAccess): Promise<unknown[]> {
	const id = await runIdOf(database, a);
	if (id === null) return [];
	const events = (await runAndChildEventBodies(database, a.job.workspace, id)) as Record<string, any>[];
	return a.canReadScript ? events : events.map(shapeOf);
}

async function runIdOf(database: Database, a: JobAccess): Promise<string | null> {
	const payload = await getJobPayloadWithoutLog(database, a.job.workspace, a.job.id);
	const args = payload?.args as { openlineage?: { run_id?: unknown } } | null;
	return typeof args?.openlineage?.run_id === 'string' ? args.openlineage.run_id : null;
}
