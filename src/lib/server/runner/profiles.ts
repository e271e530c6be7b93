// The warehouse → what dbt connects with: a rendered profiles.yml, and the child's environment,
// built from nothing. Secrets never touch the disk: profiles.yml names them only through
// `{{ env_var('DBT_ENV_SECRET_…') }}` (a prefix dbt-core itself scrubs from its own logs), and
// the job log masks their values whatever prints them.
import { stringify } from 'yaml';
import type { WarehouseWithSecrets } from '../repo/warehouses';

/** The target name Tributary renders; the profile name is the one the project asks for. */
export const TARGET_NAME = 'tributary';
export const DEFAULT_PROFILE_NAME = 'default';
const SECRET_ENV_PREFIX = 'DBT_ENV_SECRET_';

/** Variables a warehouse's `env` may not set: they would undo the isolation of the child. */
const RESERVED_ENV = new Set(['PATH', 'HOME', 'DBT_PROFILES_DIR', 'DBT_PROJECT_DIR', 'DBT_TARGET_PATH', 'DBT_LOG_PATH', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'NODE_OPTIONS']);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A secret keyed like an environment variable (`DBT_PASSWORD`) is one; any other key is a profile field (`password`). */
const ENV_STYLE = /^[A-Z][A-Z0-9_]*$/;

/** `password` → `DBT_ENV_SECRET_PASSWORD`. */
export function secretEnvName(key: string): string {
	return SECRET_ENV_PREFIX + key.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

export interface RenderedProfile {
	/** profiles.yml text: no secret value in it. */
	yaml: string;
	/** Environment variables the profile and the project read (secrets included). */
	env: Record<string, string>;
	/** Secret values to mask in anything shown. */
	secrets: string[];
	/** Names of the warehouse's `env` entries that were refused. */
	refusedEnv: string[];
}

/**
 * profiles.yml for `profileName`: one output, `tributary`, from the warehouse's settings (the dbt
 * profile target). A secret keyed like a profile field (`password`) becomes that field, written
 * as `{{ env_var('DBT_ENV_SECRET_PASSWORD') }}`; one keyed like a variable (`DBT_PASSWORD`) is
 * passed as that variable for the settings or the project to reference. A settings key `env` is
 * not part of the target: it holds plain variables the project's `env_var()` calls read; nor are
 * Tributary's own keys (`network`, `folders`, `openlineage_namespace`).
 */
export function renderProfile(wh: WarehouseWithSecrets, profileName: string): RenderedProfile {
	const { env: rawEnv, network: _network, folders: _folders, openlineage_namespace: _olNamespace, ...target } = wh.settings;
	const env: Record<string, string> = {};
	const refusedEnv: string[] = [];
	if (rawEnv && typeof rawEnv === 'object' && !Array.isArray(rawEnv)) {
		for (const [k, v] of Object.entries(rawEnv as Record<string, unknown>)) {
			if (!ENV_NAME.test(k) || RESERVED_ENV.has(k) || k.startsWith(SECRET_ENV_PREFIX) || k.startsWith('TRIBUTARY_') || k === 'DATABASE_URL') {
				refusedEnv.push(k);
				continue;
			}
			if (v === null || v === undefined) continue;
			env[k] = typeof v === 'string' ? v : JSON.stringify(v);
		}
	}
	const output: Record<string, unknown> = { ...target };
	const secrets: string[] = [];
	for (const [k, v] of Object.entries(wh.secrets)) {
		if (typeof v !== 'string') continue;
		if (v !== '') secrets.push(v);
		if (ENV_STYLE.test(k)) {
			// Named like a variable: the settings (or the project) reference it themselves.
			if (RESERVED_ENV.has(k) || k.startsWith('TRIBUTARY_') || k === 'DATABASE_URL') refusedEnv.push(k);
			else env[k] = v;
			continue;
		}
		const name = secretEnvName(k);
		output[k] = `{{ env_var('${name}') }}`;
		env[name] = v;
	}
	const doc = { [profileName]: { target: TARGET_NAME, outputs: { [TARGET_NAME]: output } } };
	return { yaml: stringify(doc, { lineWidth: 0 }), env, secrets, refusedEnv };
}

/**
 * Whether a warehouse's runs get the network (`settings.network`): a cloud warehouse needs it, a
 * local DuckDB file does not, so the default is off for `duckdb` and on for every other type.
 */
export function warehouseNetwork(settings: Record<string, unknown>): boolean {
	if (typeof settings.network === 'boolean') return settings.network;
	return String(settings.type ?? '').toLowerCase() !== 'duckdb';
}

/** The folders whose projects may run against a warehouse (`settings.folders`); null: every folder. */
export function warehouseFolders(settings: Record<string, unknown>): string[] | null {
	const f = settings.folders;
	if (f === undefined || f === null) return null;
	return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

/** The profile name a project's dbt_project.yml asks for (dbt looks it up by that name). */
export function profileNameOf(dbtProjectYml: unknown): string {
	if (dbtProjectYml && typeof dbtProjectYml === 'object' && !Array.isArray(dbtProjectYml)) {
		const p = (dbtProjectYml as Record<string, unknown>).profile;
		if (typeof p === 'string' && p.trim() !== '' && !p.includes('{{')) return p.trim();
	}
	return DEFAULT_PROFILE_NAME;
}

/** A sane PATH when the worker's own has none. */
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The child's whole environment. Nothing is inherited from the worker (whose environment holds
 * DATABASE_URL, TRIBUTARY_SECRET and whatever else the operator set): only PATH, a HOME inside
 * the job directory, locale and timezone, dbt's quiet switches, and the warehouse's variables.
 */
export function childEnv(opts: { home: string; warehouseEnv: Record<string, string>; path?: string }): Record<string, string> {
	const base: Record<string, string> = {
		PATH: opts.path ?? process.env.PATH ?? FALLBACK_PATH,
		HOME: opts.home,
		LANG: 'C.UTF-8',
		LC_ALL: 'C.UTF-8',
		TZ: 'UTC',
		DBT_SEND_ANONYMOUS_USAGE_STATS: 'false',
		// Each check for a newer dbt waits on a connection a sandbox without network never gets.
		DBT_VERSION_CHECK: 'false',
		DO_NOT_TRACK: '1',
		DBT_USE_COLORS: 'false',
		PYTHONUNBUFFERED: '1'
	};
	return { ...opts.warehouseEnv, ...base };
}

/** Replaces every secret value in text by `***`. Longest first, so a secret containing another is masked whole. */
export function makeMasker(secrets: readonly string[]): (s: string) => string {
	// A one- or two-character secret would mask half the log and protect nothing.
	const list = [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
	if (list.length === 0) return (s) => s;
	const re = new RegExp(list.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
	return (s) => s.replace(re, '***');
}
