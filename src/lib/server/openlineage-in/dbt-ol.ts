// Events `dbt-ol` (openlineage-dbt) emits for a dbt run made by another orchestrator: one job per
// model, seed or snapshot (job facet jobType with integration DBT, and dbt_node naming the node),
// each run a child (parent facet) of the invocation's own job (jobType JOB). They are not new
// producers: a model event attaches to the deployed project holding that node at that relation,
// and the invocation becomes a run of the project (its run list, its run page) whose progress
// rows colour the models as their events arrive.

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The dbt resource types whose dbt-ol events name one node of a project. */
const NODE_JOB_TYPES = new Set(['MODEL', 'SEED', 'SNAPSHOT']);

export type DbtOlJob = { kind: 'node'; uniqueId: string; parentRunId: string | null } | { kind: 'invocation' } | null;

/** What a job's facets say it is under dbt-ol: one node's job, the invocation's own job, or neither. */
export function dbtOlJobOf(jobFacets: Record<string, unknown>, runFacets: Record<string, unknown>): DbtOlJob {
	const jobType = jobFacets.jobType;
	if (!isObject(jobType) || jobType.integration !== 'DBT') return null;
	if (jobType.jobType === 'JOB') return { kind: 'invocation' };
	const node = jobFacets.dbt_node;
	if (!NODE_JOB_TYPES.has(String(jobType.jobType)) || !isObject(node) || typeof node.unique_id !== 'string') return null;
	const parent = runFacets.parent;
	const runId = isObject(parent) && isObject(parent.run) && typeof parent.run.runId === 'string' ? parent.run.runId.toLowerCase().replace(/^urn:uuid:/, '') : null;
	return { kind: 'node', uniqueId: node.unique_id, parentRunId: runId };
}
