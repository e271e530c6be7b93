// A run's arguments: checked when the run is queued (a 400 before any job exists), and resolved
// against the descriptor when it executes (selection, typed vars with `{{ placeholders }}`).
import { createHash } from 'node:crypto';
import { DBT_COMMANDS, RESERVED_RUN_ARGS, type DbtCommand, type RunArgs } from '$lib/types/runner';
import { isJobId } from '$lib/types/jobs';
import { argvWordProblem, nulIn } from '../dbt-argv';
import { badRequest } from '../http';
import type { DbtDescriptor } from '../dbt-files/descriptor';

export const SHOW_DEFAULT_LIMIT = 100;
export const SHOW_MAX_LIMIT = 1000;
export const MAX_TIMEOUT_S = 7 * 24 * 3600;
const MAX_ARGS_JSON = 64 * 1024;
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const SOLE_PLACEHOLDER = /^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;

/** Commands whose run builds relations, so its nodes settle progress rows. */
export const BUILDING_COMMANDS: ReadonlySet<DbtCommand> = new Set(['build', 'run', 'test', 'seed', 'snapshot', 'retry']);

/** The `--limit` of a `show`: zero, negatives and absence are the default; more than the ceiling is the ceiling. */
export function showLimit(requested: number | undefined): number {
	if (requested === undefined || !Number.isFinite(requested) || requested <= 0) return SHOW_DEFAULT_LIMIT;
	return Math.min(Math.trunc(requested), SHOW_MAX_LIMIT);
}

/**
 * Whether a `show` selector names at most one node. dbt splits a selector on whitespace into a
 * union, and graph operators and wildcards resolve to sets; a preview is of one model.
 */
export function showSelectsOneNode(model: string): boolean {
	const m = model.trim();
	return m !== '' && m.split(/\s+/).length === 1 && !/[+*@]/.test(m) && !m.startsWith('-');
}

function selectorList(v: unknown, field: string): string[] {
	const items = typeof v === 'string' ? [v] : v;
	if (!Array.isArray(items)) throw badRequest(`${field} must be a selector string or a list of them`);
	const out: string[] = [];
	for (const [i, item] of items.entries()) {
		if (typeof item !== 'string') throw badRequest(`${field}[${i}] must be a selector string`);
		const t = item.trim();
		if (t === '') continue;
		// Each selector becomes its own argv word after --select (the descriptor's follow the same rules).
		const problem = argvWordProblem(t);
		if (problem) throw badRequest(`${field}[${i}] ${problem}`);
		out.push(t);
	}
	return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a run request body; answers the args as stored on the job. Every refusal names the field. */
export function parseRunArgs(body: Record<string, unknown>): RunArgs {
	if (JSON.stringify(body).length > MAX_ARGS_JSON) throw badRequest(`the run arguments are larger than ${MAX_ARGS_JSON / 1024} KB`);
	const command = body.command ?? 'build';
	if (typeof command !== 'string' || !(DBT_COMMANDS as readonly string[]).includes(command)) {
		throw badRequest(`command must be one of ${DBT_COMMANDS.join(', ')}, got ${JSON.stringify(command)}`);
	}
	const args: RunArgs = { command: command as DbtCommand };
	if (body.select !== undefined && body.select !== null) args.select = selectorList(body.select, 'select');
	if (body.exclude !== undefined && body.exclude !== null) args.exclude = selectorList(body.exclude, 'exclude');
	if (body.vars !== undefined && body.vars !== null) {
		if (!isPlainObject(body.vars)) throw badRequest('vars must be an object mapping dbt var names to values');
		for (const k of Object.keys(body.vars)) {
			const problem = k === '' ? 'must not be empty' : argvWordProblem(k);
			if (problem) throw badRequest(`vars.${k.replaceAll('\u0000', '\\0').slice(0, 60)} (a variable name) ${problem}`);
		}
		args.vars = body.vars;
	}
	// Vars and placeholder values reach dbt inside one `--vars` word, which cannot hold a NUL.
	for (const [k, v] of Object.entries(body)) {
		const nul = nulIn(v, k);
		if (nul) throw badRequest(`${nul} must not contain a NUL character`);
	}
	if (body.timeout_s !== undefined && body.timeout_s !== null) {
		const t = body.timeout_s;
		if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > MAX_TIMEOUT_S) {
			throw badRequest(`timeout_s must be a whole number of seconds from 1 to ${MAX_TIMEOUT_S}`);
		}
		args.timeout_s = t;
	}
	if (command === 'show') {
		const model = body.model;
		if (typeof model !== 'string' || model.trim() === '') {
			throw badRequest('show previews one model, so it needs `model` naming one (e.g. "stg_orders")');
		}
		if (!showSelectsOneNode(model)) {
			throw badRequest(
				`show previews ONE model, so \`model\` must name exactly one; got "${model.trim()}". ` +
					'A selector naming several (spaces), a graph operator (+, @) or a wildcard (*) resolves to a set: run build with it instead'
			);
		}
		const modelProblem = argvWordProblem(model.trim());
		if (modelProblem) throw badRequest(`model ${modelProblem}`);
		args.model = model.trim();
		if (body.limit !== undefined && body.limit !== null && (typeof body.limit !== 'number' || !Number.isFinite(body.limit))) {
			throw badRequest('limit must be a number of rows (1 to 1000)');
		}
		args.limit = showLimit(body.limit as number | undefined);
	} else {
		if (body.model !== undefined && body.model !== null) throw badRequest('model is an argument of show only');
		if (body.limit !== undefined && body.limit !== null) throw badRequest('limit is an argument of show only');
	}
	if (command === 'retry') {
		const r = body.retry_job;
		if (typeof r !== 'string' || !isJobId(r.trim().toLowerCase())) {
			throw badRequest('a retry needs retry_job, the id of the run it resumes (open that run and use "Resume this run")');
		}
		args.retry_job = r.trim().toLowerCase();
		for (const k of ['select', 'exclude', 'vars'] as const) {
			if (args[k] !== undefined) throw badRequest(`a retry runs with the arguments of the run it resumes; ${k} cannot be given`);
		}
	} else if (body.retry_job !== undefined && body.retry_job !== null) throw badRequest('retry_job is an argument of retry only');
	for (const [k, v] of Object.entries(body)) {
		if ((RESERVED_RUN_ARGS as readonly string[]).includes(k)) continue;
		if (!PLACEHOLDER_NAME.test(k)) throw badRequest(`unknown argument ${JSON.stringify(k)}: values for {{ placeholders }} are named like identifiers`);
		args[k] = v;
	}
	return args;
}

/** The placeholder values of a run: every argument that is not one of the reserved ones. */
export function placeholderValues(args: Record<string, unknown>): Map<string, unknown> {
	const out = new Map<string, unknown>();
	for (const [k, v] of Object.entries(args)) {
		if (!(RESERVED_RUN_ARGS as readonly string[]).includes(k) && v !== null && v !== undefined) out.set(k, v);
	}
	return out;
}

function visitStrings(v: unknown, fn: (s: string) => void): void {
	if (typeof v === 'string') fn(v);
	else if (Array.isArray(v)) v.forEach((x) => visitStrings(x, fn));
	else if (isPlainObject(v)) Object.values(v).forEach((x) => visitStrings(x, fn));
}

/** Whether the descriptor's vars hold a `{{ placeholder }}`: then every run's model set is its own. */
export function hasPlaceholders(vars: Record<string, unknown>): boolean {
	let found = false;
	visitStrings(vars, (s) => {
		PLACEHOLDER.lastIndex = 0;
		if (PLACEHOLDER.test(s)) found = true;
	});
	return found;
}

export interface ResolvedVars {
	vars: Record<string, unknown>;
	/** Placeholders with no value among the job's args. */
	missing: string[];
}

/**
 * The `--vars` of a run: the descriptor's vars with every `{{ name }}` filled from the job's
 * args, then the run's own `vars` over them. A string that is exactly one placeholder takes the
 * argument's own type (`"{{ full }}"` given `false` reaches dbt as a boolean, since "false" is
 * truthy in Jinja); embedded in text, the value is written into the text.
 */
export function resolveVars(descriptorVars: Record<string, unknown>, args: Record<string, unknown>): ResolvedVars {
	const values = placeholderValues(args);
	const missing = new Set<string>();
	const fill = (v: unknown): unknown => {
		if (typeof v === 'string') {
			const sole = SOLE_PLACEHOLDER.exec(v);
			if (sole) {
				if (!values.has(sole[1])) {
					missing.add(sole[1]);
					return v;
				}
				return values.get(sole[1]);
			}
			return v.replace(PLACEHOLDER, (whole, name: string) => {
				if (!values.has(name)) {
					missing.add(name);
					return whole;
				}
				const x = values.get(name);
				return typeof x === 'string' ? x : JSON.stringify(x);
			});
		}
		if (Array.isArray(v)) return v.map(fill);
		if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
		return v;
	};
	const vars = fill(descriptorVars) as Record<string, unknown>;
	if (isPlainObject(args.vars)) Object.assign(vars, args.vars);
	return { vars, missing: [...missing].sort() };
}

export interface Selection {
	select: string[];
	exclude: string[];
	selector: string | null;
}

/** The run's selection: the descriptor's, unless the run names its own (which replaces a named selector too). */
export function effectiveSelection(d: Pick<DbtDescriptor, 'select' | 'exclude' | 'selector'>, args: RunArgs): Selection {
	const overridden = args.select !== undefined || args.exclude !== undefined;
	return {
		select: args.select ?? d.select,
		exclude: args.exclude ?? d.exclude,
		selector: overridden ? null : d.selector
	};
}

/** Whether this run's model set is its own (DESIGN.md §7): then it parses first and stores a snapshot. */
export function ownModelSet(d: Pick<DbtDescriptor, 'vars'>, args: RunArgs): boolean {
	return args.vars !== undefined || args.select !== undefined || args.exclude !== undefined || hasPlaceholders(d.vars);
}

export function selectionArgv(s: Selection): string[] {
	if (s.selector) return ['--selector', s.selector];
	const out: string[] = [];
	if (s.select.length) out.push('--select', ...s.select);
	if (s.exclude.length) out.push('--exclude', ...s.exclude);
	return out;
}

/** What decides which relations a run builds: a retry may resume only a run that resolves the same. */
export function resolutionDigest(scriptHash: bigint | null, selection: Selection, vars: Record<string, unknown>): string {
	const stable = (v: unknown): unknown =>
		Array.isArray(v)
			? v.map(stable)
			: isPlainObject(v)
				? Object.fromEntries(Object.keys(v).sort().map((k) => [k, stable(v[k])]))
				: v;
	return createHash('sha256')
		.update(JSON.stringify(stable({ hash: scriptHash?.toString() ?? null, selection, vars })))
		.digest('hex');
}
