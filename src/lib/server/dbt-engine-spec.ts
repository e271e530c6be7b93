// What a project asks of its dbt engine (the descriptor's `engine:`), and the lock a deploy pins:
// pure data and validation, no processes. The provisioner (provision.ts) turns a request into an
// installed engine; the lock makes every later run use exactly what the deploy resolved.

export type EngineKind = 'dbt-core' | 'fusion';

export interface EngineRequest {
	kind: EngineKind;
	/** A pip specifier for dbt-core (`==1.12.6`, `==1.12.*`, `~=1.12.0`); null: the default series. */
	version: string | null;
	/** A pip specifier for the adapter package; null: whatever the resolver pairs with the core. */
	adapterVersion: string | null;
}

/** The version of a deployed project: everything a run needs to start the same engine again. */
export interface EngineLock {
	engine: 'dbt-core' | 'dbt-fusion' | 'dbt';
	engine_version: string;
	/** The warehouse type (`duckdb`), null when the engine is brought by the operator and says none. */
	adapter: string | null;
	adapter_version: string | null;
	python_version: string | null;
	/** SHA-256 of the package-lock.yml `dbt deps` wrote; null when the project declares no packages. */
	package_lock_digest: string | null;
	/** The package-lock.yml itself, so a worker without the cached packages installs exactly these. */
	package_lock_yml?: string;
	/** How the engine was found: provisioned by Tributary, the operator's DBT_BIN, or TRIBUTARY_FUSION_BIN. */
	source: 'provisioned' | 'dbt_bin' | 'fusion_bin';
}

/** dbt-core series used when a descriptor names none. */
export const DEFAULT_CORE_SERIES = '1.12';

/** Warehouse `type` → the PyPI package of its dbt adapter. */
export const ADAPTER_PACKAGES: Readonly<Record<string, string>> = {
	duckdb: 'dbt-duckdb',
	postgres: 'dbt-postgres',
	redshift: 'dbt-redshift',
	snowflake: 'dbt-snowflake',
	bigquery: 'dbt-bigquery',
	databricks: 'dbt-databricks',
	spark: 'dbt-spark',
	trino: 'dbt-trino',
	athena: 'dbt-athena-community',
	clickhouse: 'dbt-clickhouse',
	sqlserver: 'dbt-sqlserver',
	fabric: 'dbt-fabric',
	synapse: 'dbt-synapse',
	oracle: 'dbt-oracle',
	mysql: 'dbt-mysql',
	sqlite: 'dbt-sqlite'
};

export class EngineSpecError extends Error {
	constructor(
		readonly field: string,
		message: string
	) {
		super(message);
	}
}

/** The adapter package for a warehouse type, or an error naming the type and the known ones. */
export function adapterPackage(type: string): string {
	const pkg = ADAPTER_PACKAGES[type.toLowerCase()];
	if (!pkg) {
		throw new EngineSpecError(
			'type',
			`no dbt adapter package is known for the warehouse type "${type}" (known: ${Object.keys(ADAPTER_PACKAGES).join(', ')}); ` +
				'set DBT_BIN to an engine you installed yourself to run it'
		);
	}
	return pkg;
}

const VERSION = /^\d+(\.\d+){0,3}((a|b|rc)\d+)?(\.post\d+)?$/;
const SERIES = /^\d+(\.\d+){0,2}\.\*$/;

/**
 * A version as the descriptor writes it → a pip specifier. An exact version (`1.12.6`, `==1.12.6`),
 * a series (`1.12`, `1.12.*`, `==1.12.*`) or a compatible release (`~=1.12.0`); nothing else,
 * so that what a lock resolves from stays readable.
 */
export function pipSpecifier(raw: string, field: string): string {
	const v = raw.trim().replace(/\s+/g, '');
	if (v.startsWith('~=')) {
		const rest = v.slice(2);
		if (VERSION.test(rest) && rest.includes('.')) return v;
	} else {
		const rest = v.startsWith('==') ? v.slice(2) : v;
		if (SERIES.test(rest)) return `==${rest}`;
		if (VERSION.test(rest)) {
			// A bare major.minor names its series: `1.12` is every 1.12.x.
			if (!v.startsWith('==') && /^\d+\.\d+$/.test(rest)) return `==${rest}.*`;
			return `==${rest}`;
		}
	}
	throw new EngineSpecError(
		field,
		`must be an exact version ("1.12.6"), a series ("1.12" or "1.12.*") or a compatible release ("~=1.12.0"), not ${JSON.stringify(raw.slice(0, 60))}`
	);
}

/** Whether a specifier names exactly one version. */
export function isExact(spec: string): boolean {
	return spec.startsWith('==') && !spec.endsWith('*');
}

/** Whether an exact version satisfies a specifier made by pipSpecifier. */
export function satisfies(version: string, spec: string): boolean {
	if (spec.startsWith('~=')) {
		const want = spec.slice(2).split('.');
		const have = version.split('.');
		const prefix = want.slice(0, -1);
		if (!prefix.every((p, i) => have[i] === p)) return false;
		return compareVersions(version, spec.slice(2)) >= 0;
	}
	const want = spec.slice(2);
	if (want.endsWith('.*')) return version === want.slice(0, -2) || version.startsWith(want.slice(0, -1));
	return version === want;
}

/** Orders release versions numerically part by part (pre-release suffixes order before the release). */
export function compareVersions(a: string, b: string): number {
	const parts = (v: string) => v.split(/[.+]/).map((p) => {
		const m = /^(\d+)(.*)$/.exec(p);
		return m ? { n: Number(m[1]), tail: m[2] } : { n: -1, tail: p };
	});
	const x = parts(a);
	const y = parts(b);
	for (let i = 0; i < Math.max(x.length, y.length); i++) {
		const p = x[i] ?? { n: 0, tail: '' };
		const q = y[i] ?? { n: 0, tail: '' };
		if (p.n !== q.n) return p.n - q.n;
		if (p.tail !== q.tail) return p.tail === '' ? 1 : q.tail === '' ? -1 : p.tail < q.tail ? -1 : 1;
	}
	return 0;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function versionField(v: unknown, field: string): string | null {
	if (v == null) return null;
	if (typeof v === 'number') {
		throw new EngineSpecError(field, `must be written as a string in quotes ("${v}"): YAML reads an unquoted ${v} as a number, and 1.10 as 1.1`);
	}
	if (typeof v !== 'string' || v.trim() === '') throw new EngineSpecError(field, `must be a version string such as "1.12", not ${JSON.stringify(v)}`);
	return pipSpecifier(v, field);
}

const KNOWN = new Set(['kind', 'version', 'adapter_version']);

/** The descriptor's `engine:` value (absent: the default dbt-core series). Unknown keys come back as warnings. */
export function parseEngineRequest(raw: unknown): { request: EngineRequest; warnings: string[] } {
	const warnings: string[] = [];
	if (raw == null) return { request: { kind: 'dbt-core', version: null, adapterVersion: null }, warnings };
	if (!isObject(raw)) throw new EngineSpecError('engine', 'must be a mapping such as `{version: "1.12", adapter_version: "1.11"}`');
	for (const k of Object.keys(raw)) if (!KNOWN.has(k)) warnings.push(`unknown setting \`engine.${k}\` was ignored`);
	const kind = raw.kind ?? 'dbt-core';
	if (kind !== 'dbt-core' && kind !== 'fusion') throw new EngineSpecError('engine.kind', `must be "dbt-core" (the default) or "fusion", not ${JSON.stringify(kind)}`);
	if (kind === 'fusion') {
		if (raw.adapter_version != null) warnings.push('`engine.adapter_version` is ignored for fusion, which carries its adapters');
		return { request: { kind, version: versionField(raw.version, 'engine.version'), adapterVersion: null }, warnings };
	}
	return {
		request: { kind, version: versionField(raw.version, 'engine.version'), adapterVersion: versionField(raw.adapter_version, 'engine.adapter_version') },
		warnings
	};
}

/** The specifier a request resolves its core from. */
export const coreSpecifier = (r: EngineRequest): string => r.version ?? `==${DEFAULT_CORE_SERIES}.*`;

/** The one line a log or a page shows for a lock. */
export function describeLock(l: EngineLock): string {
	const adapter = l.adapter ? ` + ${l.adapter} ${l.adapter_version ?? '(version unknown)'}` : '';
	const py = l.python_version ? `, Python ${l.python_version}` : '';
	const pk = l.package_lock_digest ? `, packages ${l.package_lock_digest.slice(0, 12)}` : '';
	return `${l.engine} ${l.engine_version}${adapter}${py}${pk}`;
}

/** Reads a stored lock back (a version's `lock` column); null for anything that is not one. */
export function lockOf(v: unknown): EngineLock | null {
	if (!isObject(v) || typeof v.engine_version !== 'string' || typeof v.engine !== 'string') return null;
	const s = (x: unknown) => (typeof x === 'string' ? x : null);
	return {
		engine: v.engine as EngineLock['engine'],
		engine_version: v.engine_version,
		adapter: s(v.adapter),
		adapter_version: s(v.adapter_version),
		python_version: s(v.python_version),
		package_lock_digest: s(v.package_lock_digest),
		...(typeof v.package_lock_yml === 'string' ? { package_lock_yml: v.package_lock_yml } : {}),
		source: (s(v.source) as EngineLock['source']) ?? 'provisioned'
	};
}
