// The limits of the scan before parsing never stop real SQL: every compiled node of every real
// dbt manifest among the fixtures, and every model of the generated 3000-model project, passes.
// The largest figures are printed: docs/column-lineage.md ("Bounds and fairness") quotes them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it, vi } from 'vitest';
import { describeFixtures, FIXTURES } from '../../../../tests/support/fixtures';
import { COMPLEXITY_LIMITS, measureSql, tooComplex, type ComplexityMeasure } from '../../lineage/infer/complexity';
import { dialectOf } from '../../lineage/infer/dialect';
import type { InferDialect } from '../../lineage/infer/types';
import { generateProject } from '../demo/generator';

// Generating the 3000-model project takes tens of seconds on a loaded 2-core machine.
vi.setConfig({ testTimeout: 300_000 });

interface Largest {
	models: number;
	max: Record<ComplexityMeasure, { value: number; node: string }>;
	tripped: string[];
}

function sweep(manifests: { name: string; manifest: any }[]): Largest {
	const out: Largest = { models: 0, max: { chars: { value: 0, node: '' }, depth: { value: 0, node: '' }, tokens: { value: 0, node: '' } }, tripped: [] };
	for (const { name, manifest } of manifests) {
		const dialect: InferDialect = dialectOf(manifest.metadata?.adapter_type).dialect;
		for (const n of Object.values(manifest.nodes ?? {}) as any[]) {
			// compiled_sql: manifests before v7.
			const sql = n.compiled_code ?? n.compiled_sql;
			if (typeof sql !== 'string' || sql.trim() === '') continue;
			out.models++;
			const m = measureSql(sql, dialect);
			for (const k of ['chars', 'depth', 'tokens'] as const) if (m[k] > out.max[k].value) out.max[k] = { value: m[k], node: `${name}: ${n.unique_id}` };
			const v = tooComplex(sql, dialect);
			if (v) out.tripped.push(`${name}: ${n.unique_id}: ${v.message}`);
		}
	}
	return out;
}

const report = (what: string, l: Largest) =>
	process.stderr.write(
		`[complexity limits] ${what}: ${l.models} compiled nodes; largest ${(['chars', 'depth', 'tokens'] as const).map((k) => `${k} ${l.max[k].value} (${l.max[k].node}) of ${COMPLEXITY_LIMITS[k]}`).join('; ')}\n`
	);

/** Every manifest*.json under the fixtures that is a dbt manifest (not a JSON schema). */
function fixtureManifests(): { name: string; manifest: any }[] {
	const found: { name: string; manifest: any }[] = [];
	const walk = (dir: string) => {
		for (const e of readdirSync(dir, { withFileTypes: true })) {
			const p = path.join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else if (/^manifest.*\.json$/.test(e.name)) {
				const manifest = JSON.parse(readFileSync(p, 'utf8'));
				if (manifest && typeof manifest === 'object' && manifest.nodes && manifest.metadata) found.push({ name: path.relative(FIXTURES, p), manifest });
			}
		}
	};
	walk(FIXTURES);
	return found;
}

describeFixtures('the scan before parsing stops no real model', () => {
	it('every compiled node of the real dbt manifests among the fixtures passes', () => {
		const manifests = fixtureManifests();
		// The projects the inference coverage reads are among them: a sweep of nothing proves nothing.
		expect(manifests.map((m) => m.name)).toEqual(expect.arrayContaining(['tuva-1.4.9-snowflake-large-v8/manifest.json', 'fivetran-sap-1.10.10-v12/manifest.json', 'jaffle-shop-1.9-bigquery-build/manifest.json']));
		const l = sweep(manifests);
		report('fixtures', l);
		expect(l.models).toBeGreaterThan(1000);
		expect(l.tripped).toEqual([]);
	});
});

it('every model of the generated 3000-model project passes', async () => {
	const project = await generateProject({ models: 3000, columnEdges: 200_000, seed: 1 });
	const l = sweep([{ name: 'generated 3000', manifest: project.manifest }]);
	report('generated 3000-model project', l);
	expect(l.models).toBeGreaterThanOrEqual(3000);
	expect(l.tripped).toEqual([]);
});
