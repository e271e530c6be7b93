// The deploy's half of column-lineage inference: the plan of a parsed manifest (and catalog),
// gzipped for the lineage job, with the counts the deploy answer and its warnings need. Computed
// where the manifest is parsed (a worker thread for a big one), so the request thread never holds
// the whole project: on the generated 3000-model project the plan and its gzip take about as long
// as the manifest's own JSON.parse.
import { gzipSync } from 'node:zlib';
import { inferencePlan } from '$lib/lineage/infer/manifest';

/** A plan ready to store, and what the deploy says about it. */
export interface PlannedInference {
	/** The serialized InferencePlan, gzip (what lineage_plan stores). */
	gz: Uint8Array;
	dialect: string;
	dialectWarning: string | null;
	catalogWarning: string | null;
	/** Models of the manifest (SQL, Python, ephemeral). */
	models: number;
	/** Models the job will infer (compiled SQL, not skipped). */
	withSql: number;
	/** Models skipped because the manifest has no compiled SQL for them (`dbt parse`, a partial compile). */
	noSql: number;
}

export const NO_COMPILED_SQL = 'no compiled SQL in the manifest';

export function planInference(manifest: unknown, catalog: unknown | null): PlannedInference {
	const plan = inferencePlan(manifest, catalog);
	return {
		// Level 1: the plan is stored once and read once; a higher level only costs the deploy time.
		gz: new Uint8Array(gzipSync(Buffer.from(JSON.stringify(plan)), { level: 1 })),
		dialect: plan.dialect,
		dialectWarning: plan.dialectWarning,
		catalogWarning: plan.catalogWarning,
		models: plan.models.length,
		withSql: plan.models.filter((m) => m.sql !== null && m.skip === null).length,
		noSql: plan.models.filter((m) => m.sql === null && (m.skip ?? '').startsWith(NO_COMPILED_SQL)).length
	};
}
