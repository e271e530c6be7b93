import { describe, expect, it } from 'vitest';
import { applyToContext, newNameContext, resolveTableName } from './producer-sql';

describe('resolveTableName', () => {
	const wh = { name: 'main', defaultDatabase: 'jaffle_shop' };
	const ctx = newNameContext(wh);
	applyToContext({ kind: 'attach', target: 'ducklake:x.ducklake', alias: 'Lake', lake: true }, ctx);
	applyToContext({ kind: 'attach', target: 'other.duckdb', alias: 'other', lake: false }, ctx);

	it.each([
		[['analytics', 'orders'], 'dbt://main/analytics/orders'],
		[['Analytics', '"Orders"'], 'dbt://main/analytics/orders'],
		[['analytics.v2', 'orders'], 'dbt://main/analytics.v2/orders'],
		[['jaffle_shop', 'main', 'orders'], 'dbt://main/main/orders'],
		[['JAFFLE_SHOP', 'main', 'orders'], 'dbt://main/main/orders'],
		[['archive', 'main', 'orders'], 'dbt://main/archive.main/orders'],
		[['lake', 'Report'], 'ducklake://main/report'],
		[['lake', 'main', 'report'], 'ducklake://main/report'],
		[['ducklake', 'report'], 'ducklake://main/report']
	])('%j → %s', (parts, expected) => {
		const r = resolveTableName(parts, ctx);
		expect(r.ok && `${r.asset.kind}://${r.asset.path}`).toBe(expected);
	});

	it.each([
		[['orders'], 'without a schema'],
		[['other', 'orders'], 'attached database'],
		[['lake', 'staging', 'report'], 'is not main'],
		[['a', 'b', 'c', 'd'], 'too many'],
		[['a/b', 'c'], 'not a valid relation name']
	])('%j resolves to nothing (%s)', (parts, reason) => {
		const r = resolveTableName(parts, ctx);
		expect(r.ok).toBe(false);
		expect(!r.ok && r.reason).toContain(reason);
	});

	it('USE of a lake makes bare names lake tables', () => {
		const c = newNameContext(wh);
		applyToContext({ kind: 'attach', target: 'ducklake:lake.ducklake', alias: 'lake', lake: true }, c);
		expect(resolveTableName(['t'], c).ok).toBe(false);
		applyToContext({ kind: 'use', parts: ['lake'] }, c);
		const r = resolveTableName(['T'], c);
		expect(r.ok && r.asset).toEqual({ kind: 'ducklake', path: 'main/t' });
	});

	it('without a default database, a named database is always qualified', () => {
		const r = resolveTableName(['jaffle_shop', 'main', 'orders'], newNameContext({ name: 'main' }));
		expect(r.ok && r.asset.path).toBe('main/jaffle_shop.main/orders');
	});
});
