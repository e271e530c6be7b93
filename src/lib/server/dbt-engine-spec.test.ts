import { describe, expect, it } from 'vitest';
import { adapterPackage, compareVersions, describeLock, isExact, lockOf, pipSpecifier, satisfies } from './dbt-engine-spec';

describe('pipSpecifier', () => {
	it.each([
		['1.12.6', '==1.12.6'],
		['==1.12.6', '==1.12.6'],
		['1.12', '==1.12.*'],
		['1.12.*', '==1.12.*'],
		['==1.12.*', '==1.12.*'],
		['~=1.12.0', '~=1.12.0'],
		[' 1.11.16 ', '==1.11.16'],
		['1.12.0rc1', '==1.12.0rc1']
	])('%s → %s', (raw, spec) => expect(pipSpecifier(raw, 'engine.version')).toBe(spec));

	it.each(['>=1.0', 'latest', '1.x', '~=1', '', '1.12; rm -rf /'])('refuses %j', (raw) => {
		expect(() => pipSpecifier(raw, 'engine.version')).toThrow(/exact version/);
	});
});

describe('satisfies and isExact', () => {
	it('matches series, exact and compatible releases', () => {
		expect(satisfies('1.12.6', '==1.12.*')).toBe(true);
		expect(satisfies('1.1.2', '==1.12.*')).toBe(false);
		expect(satisfies('1.12.6', '==1.12.6')).toBe(true);
		expect(satisfies('1.12.5', '==1.12.6')).toBe(false);
		expect(satisfies('1.12.6', '~=1.12.0')).toBe(true);
		expect(satisfies('1.13.0', '~=1.12.0')).toBe(false);
		expect(satisfies('1.11.9', '~=1.12.0')).toBe(false);
		expect(isExact('==1.12.6')).toBe(true);
		expect(isExact('==1.12.*')).toBe(false);
		expect(isExact('~=1.12.0')).toBe(false);
	});

	it('orders versions numerically, a pre-release before its release', () => {
		expect(['1.10.2', '1.9.10', '1.12.0', '1.12.0rc1'].sort(compareVersions)).toEqual(['1.9.10', '1.10.2', '1.12.0rc1', '1.12.0']);
	});
});

describe('adapterPackage', () => {
	it('names the package of a known warehouse type, in any case', () => {
		expect(adapterPackage('duckdb')).toBe('dbt-duckdb');
		expect(adapterPackage('Postgres')).toBe('dbt-postgres');
	});
	it('refuses an unknown type, naming it', () => {
		expect(() => adapterPackage('mongodb')).toThrow(/"mongodb"/);
	});
});

describe('locks', () => {
	it('reads a stored lock back and describes it in one line', () => {
		const lock = lockOf({ engine: 'dbt-core', engine_version: '1.12.6', adapter: 'duckdb', adapter_version: '1.11.1', python_version: '3.11.7', package_lock_digest: 'ab'.repeat(32), source: 'provisioned' });
		expect(lock).not.toBeNull();
		expect(describeLock(lock!)).toBe('dbt-core 1.12.6 + duckdb 1.11.1, Python 3.11.7, packages abababababab');
		expect(lockOf(null)).toBeNull();
		expect(lockOf({ engine: 'dbt-core' })).toBeNull();
	});
});
