// The scan before parsing: what it counts (strings, quoted names and comments are not brackets
// or tokens of their own), and the pathological shapes it stops, each by the measure that trips.
import { describe, expect, it } from 'vitest';
import { COMPLEXITY_LIMITS, measureSql, tooComplex } from './complexity';
import { pathologicalSql } from '../../../../tests/support/pathological-sql';

describe('measureSql', () => {
	it('counts words, numbers, literals, quoted names and operators as tokens', () => {
		// select, a, +, 1, as, "b c", ',', 'x', from, t, where, x, >=, 2.5
		expect(measureSql(`select a + 1 as "b c", 'x' from t where x >= 2.5`)).toEqual({ chars: 48, depth: 0, tokens: 14 });
	});

	it('brackets and CASE … END nest; unbalanced closers never go below zero', () => {
		expect(measureSql('select ((a)), b[1] from t').depth).toBe(2);
		expect(measureSql('select case when a then case when b then 1 end end from t').depth).toBe(2);
		expect(measureSql('select a)))) , ((b)) from t').depth).toBe(2);
		// `end` outside a CASE (a BEGIN … END block, a column named end_date is one word) closes nothing.
		expect(measureSql('select end_date, (x) from t').depth).toBe(1);
	});

	it('brackets inside strings, quoted names and comments are not counted', () => {
		const m = measureSql(`select '((((', "((((", \`((((\` -- ((((\n/* (((( */ from t`);
		expect(m.depth).toBe(0);
		expect(m.tokens).toBe(8);
	});

	it('doubled quotes stay inside a literal; backslash escapes only where the dialect has them', () => {
		expect(measureSql(`select 'it''s (' from t`).depth).toBe(0);
		expect(measureSql(`select 'it\\'s (' from t`, 'bigquery').depth).toBe(0);
		// In Postgres a backslash is an ordinary character: the literal ends at the second quote.
		expect(measureSql(`select 'a\\' , ( 1 ) from t`, 'postgres').depth).toBe(1);
	});

	it('dollar-quoted bodies and # comments (where # is one) are skipped', () => {
		expect(measureSql('select $$ (((( $$ as x, $tag$ (( $tag$ as y').depth).toBe(0);
		expect(measureSql('select 1 # ((((\nfrom t', 'bigquery').depth).toBe(0);
	});

	it('an unterminated literal or comment ends the scan without error', () => {
		expect(measureSql(`select '(((`).depth).toBe(0);
		expect(measureSql('select /* (((').tokens).toBe(1);
	});
});

describe('tooComplex', () => {
	it('lets ordinary SQL through', () => {
		expect(tooComplex('with a as (select id, sum(x) as s from t group by 1) select * from a', 'duckdb')).toBeNull();
	});

	it.each(pathologicalSql())('stops $name by its $trips, naming the figure and the limit', ({ sql, trips }) => {
		const v = tooComplex(sql, 'duckdb');
		expect(v).not.toBeNull();
		expect(v!.measure).toBe(trips);
		expect(v!.value).toBeGreaterThan(COMPLEXITY_LIMITS[trips]);
		expect(v!.message).toBe(
			`too complex to analyse: ${
				trips === 'depth'
					? `brackets or CASE expressions nested ${v!.value.toLocaleString('en-US')} deep`
					: `${v!.value.toLocaleString('en-US')} ${trips === 'tokens' ? 'tokens' : 'characters of SQL'}`
			}, over the limit of ${COMPLEXITY_LIMITS[trips].toLocaleString('en-US')} (checked before parsing)`
		);
	});

	it('length is checked first: past it nothing else is looked at', () => {
		const v = tooComplex(`select ${'('.repeat(10)} 1`, 'duckdb', { chars: 10, depth: 1, tokens: 1 });
		expect(v).toMatchObject({ measure: 'chars', value: 19, limit: 10 });
	});
});
