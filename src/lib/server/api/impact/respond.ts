// The column impact answer as its routes send it: JSON, or CSV with its limits in headers.
import { impactCsv } from '../../../lineage/column-impact';
import type { ColumnImpactAnswer, ColumnImpactTest } from '../../../types/column-impact';
import type { ImpactQuery } from './parse';

// ─── The answer ────────────────────────────────────────────────────────────────────────────

const showTest = (t: ColumnImpactTest) => (t.column ? `${t.kind ?? 'test'}(${t.column})` : (t.kind ?? 'test'));

/**
 * The answer as the route sends it: JSON, or CSV (a header row, one row per column; a row's
 * `tests` are the tests on its relation, `kind(column)`) with `truncated` and
 * `withheld` in headers, since a CSV body has no place for them.
 */
export function impactResponse(answer: ColumnImpactAnswer, q: ImpactQuery): Response {
	const headers: Record<string, string> = { 'cache-control': 'private, no-store' };
	if (q.format === 'json') {
		return new Response(JSON.stringify(answer), { headers: { ...headers, 'content-type': 'application/json' } });
	}
	const csv = impactCsv(answer.columns, (e) =>
		(e.kind === 'dbt' ? (answer.tests[e.asset_path] ?? []) : []).map(showTest)
	);
	const name = `impact-${q.direction}-${q.column}`.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 120);
	return new Response(csv, {
		headers: {
			...headers,
			'content-type': 'text/csv; charset=utf-8',
			'content-disposition': `attachment; filename="${name}.csv"`,
			'x-impact-truncated': String(answer.truncated),
			'x-impact-withheld': String(answer.withheld)
		}
	});
}
