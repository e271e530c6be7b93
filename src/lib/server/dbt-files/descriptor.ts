// The dbt script's descriptor: a small YAML document saying which warehouse the project builds
// into, what it selects, and how runs behave (DESIGN.md §7). Every field is optional; an empty
// or absent descriptor means "the whole project on the `main` warehouse".
import { parseDocument } from 'yaml';
import { argvWordProblem, nulIn } from '../dbt-argv';
import { EngineSpecError, parseEngineRequest, type EngineRequest } from '../dbt-engine-spec';
import { IngestError } from './errors';

const FILE = 'descriptor';

export const DEFAULT_WAREHOUSE = 'main';

export const TEST_BEHAVIORS = ['build', 'after_all', 'none'] as const;
export type TestBehavior = (typeof TEST_BEHAVIORS)[number];

/** More retries than this only delays the failure a person has to look at anyway. */
export const MAX_RETRY_ATTEMPTS = 10;

export interface RetryPolicy {
	attempts: number;
	/** Seconds between attempts. */
	delay: number;
}

export interface DbtDescriptor {
	warehouse: string;
	select: string[];
	exclude: string[];
	selector: string | null;
	vars: Record<string, unknown>;
	testBehavior: TestBehavior;
	columnLineage: boolean;
	retryFailedNodes: RetryPolicy | null;
	/** The dbt engine the project runs on (`engine:`); absent: dbt-core's default series. */
	engine: EngineRequest;
	/** Keys this version does not know; kept as warnings rather than refused, so a newer descriptor still deploys. */
	warnings: string[];
}

const KNOWN_KEYS = new Set(['profile', 'select', 'exclude', 'selector', 'vars', 'test_behavior', 'column_lineage', 'retry_failed_nodes', 'engine']);

// The warehouse name is the authority part of `dbt://<warehouse>/...`, so it follows the same
// segment rule as path segments: a `/` or `:` in it would make the URI mean something else. It
// does not start with `-`, like every other value of the descriptor that reaches dbt.
const WAREHOUSE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

// A descriptor is a few lines of settings; these bounds only refuse what is built to hurt: a
// YAML bomb (anchors aliased into exponential expansion), a circular anchor (an alias inside its
// own anchor, which yaml turns into a self-referencing object that every later walk of it, and
// every run, would overflow the stack on), and nesting or size no descriptor needs.
export const MAX_DESCRIPTOR_BYTES = 64 * 1024;
/** yaml's `maxAliasCount`: each alias counts the nodes it expands to. */
export const MAX_DESCRIPTOR_ALIASES = 50;
export const MAX_DESCRIPTOR_DEPTH = 32;
/** `--vars` is one argv word (Linux allows 128 KiB per word); the run's own values add to it. */
export const MAX_VARS_JSON = 32 * 1024;

function parseYaml(text: string): unknown {
	if (Buffer.byteLength(text, 'utf8') > MAX_DESCRIPTOR_BYTES) throw new IngestError(FILE, `is larger than ${MAX_DESCRIPTOR_BYTES / 1024} KB`);
	// The descriptor is stored as text, which Postgres refuses with a NUL in it (even in a comment).
	if (text.includes('\u0000')) throw new IngestError(FILE, `holds a NUL character at character ${text.indexOf('\u0000')}, which cannot be stored`);
	// yaml's parser recurses per flow level and reports a stack overflow only after it (a second
	// of blocked event loop for 5,000 `[`): refuse that nesting before parsing.
	if (flowDepthOver(text, MAX_DESCRIPTOR_DEPTH)) throw new IngestError(FILE, `nests deeper than ${MAX_DESCRIPTOR_DEPTH} levels`);
	const doc = parseDocument(text, { uniqueKeys: true });
	const parseError = doc.errors[0];
	if (parseError) {
		if (parseError.code === 'RESOURCE_EXHAUSTION') throw new IngestError(FILE, `nests deeper than ${MAX_DESCRIPTOR_DEPTH} levels`);
		throw new IngestError(FILE, `is not valid YAML: ${firstLine(parseError)}`);
	}
	let value: unknown;
	try {
		value = doc.toJS({ maxAliasCount: MAX_DESCRIPTOR_ALIASES });
	} catch (e) {
		if (/alias count/i.test(String((e as Error).message))) {
			throw new IngestError(FILE, `its aliases expand to more than ${MAX_DESCRIPTOR_ALIASES} nodes (anchors aliased like this are a YAML bomb): write the values out`);
		}
		throw new IngestError(FILE, `is not valid YAML: ${firstLine(e)}`);
	}
	plainData(value, '', 0, new Set());
	return value;
}

/**
 * Whether flow collections (`[`, `{`) open deeper than `max` outside quotes and comments. A
 * scan, not a parse: an apostrophe inside a plain scalar (`it's`) shifts what it takes as quoted,
 * so brackets may be missed (plainData's bound still holds) or, past such an apostrophe, more
 * than `max` brackets in a row inside a quoted string counted; no real descriptor holds those.
 */
function flowDepthOver(text: string, max: number): boolean {
	let depth = 0;
	let quote: '"' | "'" | null = null;
	let comment = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (comment) {
			if (c === '\n') comment = false;
		} else if (quote) {
			if (c === '\\' && quote === '"') i++;
			else if (c === quote) quote = null;
		} else if (c === '"' || c === "'") quote = c;
		else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) comment = true;
		else if (c === '[' || c === '{') {
			if (++depth > max) return true;
		} else if ((c === ']' || c === '}') && depth > 0) depth--;
	}
	return false;
}

/** Refuses what JSON cannot hold: a circular alias, nesting past the bound, and tagged values (`!!binary`). */
function plainData(v: unknown, field: string, depth: number, ancestors: Set<object>): void {
	if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return;
	const where = field || 'the document';
	if (typeof v === 'number') throw fieldError(where, `must be a finite number, not ${v}`);
	if (typeof v !== 'object') throw fieldError(where, `must be plain YAML data (a mapping, list, string, number, boolean or null), not ${typeof v}`);
	if (ancestors.has(v)) throw fieldError(where, 'refers to itself through a YAML alias (a circular anchor): write the value out');
	if (depth >= MAX_DESCRIPTOR_DEPTH) throw fieldError(where, `nests deeper than ${MAX_DESCRIPTOR_DEPTH} levels`);
	const proto = Object.getPrototypeOf(v);
	if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
		throw fieldError(where, 'must be plain YAML data (a mapping, list, string, number, boolean or null), not a tagged value');
	}
	ancestors.add(v);
	if (Array.isArray(v)) v.forEach((x, i) => plainData(x, `${field}[${i}]`, depth + 1, ancestors));
	else for (const [k, x] of Object.entries(v)) plainData(x, field ? `${field}.${k}` : k, depth + 1, ancestors);
	ancestors.delete(v);
}

export function parseDescriptor(text: string | null | undefined): DbtDescriptor {
	const doc = text == null || text.trim() === '' ? null : parseYaml(text);
	const out: DbtDescriptor = {
		warehouse: DEFAULT_WAREHOUSE,
		select: [],
		exclude: [],
		selector: null,
		vars: {},
		testBehavior: 'build',
		columnLineage: false,
		retryFailedNodes: null,
		engine: { kind: 'dbt-core', version: null, adapterVersion: null },
		warnings: []
	};
	if (doc == null) return out;
	if (!isPlainObject(doc)) throw new IngestError(FILE, `must be a YAML mapping of settings, not ${describe(doc)}`);

	for (const key of Object.keys(doc)) {
		if (!KNOWN_KEYS.has(key)) out.warnings.push(`descriptor: unknown setting \`${key}\` was ignored`);
	}

	if (doc.profile != null) {
		if (!isPlainObject(doc.profile)) throw fieldError('profile', `must be a mapping (e.g. \`warehouse: main\`), not ${describe(doc.profile)}`);
		const wh = doc.profile.warehouse;
		if (wh != null) {
			if (typeof wh !== 'string' || !WAREHOUSE_NAME.test(wh)) {
				throw fieldError('profile.warehouse', `must be a warehouse name of letters, digits, \`_\` and \`-\` (not first), not ${describe(wh)}`);
			}
			out.warehouse = wh;
		}
	}
	out.select = selectorList(doc.select, 'select');
	out.exclude = selectorList(doc.exclude, 'exclude');
	if (doc.selector != null) {
		if (typeof doc.selector !== 'string' || doc.selector.trim() === '') {
			throw fieldError('selector', `must be the name of a selector from selectors.yml, not ${describe(doc.selector)}`);
		}
		const problem = argvWordProblem(doc.selector.trim());
		if (problem) throw fieldError('selector', problem);
		out.selector = doc.selector.trim();
	}
	if (doc.vars != null) out.vars = varsOf(doc.vars);
	if (doc.test_behavior != null) {
		const tb = doc.test_behavior;
		if (typeof tb !== 'string' || !(TEST_BEHAVIORS as readonly string[]).includes(tb)) {
			throw fieldError('test_behavior', `must be one of ${TEST_BEHAVIORS.join(', ')}, not ${describe(tb)}`);
		}
		out.testBehavior = tb as TestBehavior;
	}
	if (doc.column_lineage != null) {
		if (typeof doc.column_lineage !== 'boolean') throw fieldError('column_lineage', `must be true or false, not ${describe(doc.column_lineage)}`);
		out.columnLineage = doc.column_lineage;
	}
	if (doc.retry_failed_nodes != null) out.retryFailedNodes = retryPolicy(doc.retry_failed_nodes);
	try {
		const engine = parseEngineRequest(doc.engine);
		out.engine = engine.request;
		out.warnings.push(...engine.warnings);
	} catch (e) {
		if (e instanceof EngineSpecError) throw fieldError(e.field, e.message);
		throw e;
	}
	return out;
}

/** dbt accepts one selector string or a list of them; both become a list, blanks dropped. */
function selectorList(v: unknown, field: string): string[] {
	if (v == null) return [];
	const items = typeof v === 'string' ? [v] : v;
	if (!Array.isArray(items)) throw fieldError(field, `must be a selector string or a list of them, not ${describe(v)}`);
	const out: string[] = [];
	items.forEach((item, i) => {
		if (typeof item !== 'string') throw fieldError(`${field}[${i}]`, `must be a selector string, not ${describe(item)}`);
		const t = item.trim();
		if (t === '') return;
		// Each selector becomes its own argv word after --select.
		const problem = argvWordProblem(t);
		if (problem) throw fieldError(`${field}[${i}]`, problem);
		out.push(t);
	});
	return out;
}

/** `vars` reach dbt as one `--vars` JSON word: names like selectors, no NUL anywhere, bounded. */
function varsOf(v: unknown): Record<string, unknown> {
	if (!isPlainObject(v)) throw fieldError('vars', `must be a mapping of variable names to values, not ${describe(v)}`);
	for (const k of Object.keys(v)) {
		const problem = k === '' ? 'must not be empty' : argvWordProblem(k);
		if (problem) throw fieldError(`vars.${k.replaceAll('\u0000', '\\0').slice(0, 60)}`, `(a variable name) ${problem}`);
	}
	const nul = nulIn(v, 'vars');
	if (nul) throw fieldError(nul, 'must not contain a NUL character');
	if (JSON.stringify(v).length > MAX_VARS_JSON) throw fieldError('vars', `are larger than ${MAX_VARS_JSON / 1024} KB as JSON`);
	return v;
}

function retryPolicy(v: unknown): RetryPolicy {
	if (!isPlainObject(v)) throw fieldError('retry_failed_nodes', `must be a mapping with \`attempts\` and \`delay\`, not ${describe(v)}`);
	const { attempts, delay } = v;
	if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 0 || attempts > MAX_RETRY_ATTEMPTS) {
		throw fieldError('retry_failed_nodes.attempts', `must be a whole number from 0 to ${MAX_RETRY_ATTEMPTS}, not ${describe(attempts)}`);
	}
	if (delay != null && (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)) {
		throw fieldError('retry_failed_nodes.delay', `must be a number of seconds, 0 or more, not ${describe(delay)}`);
	}
	return { attempts, delay: typeof delay === 'number' ? delay : 0 };
}

function fieldError(field: string, problem: string): IngestError {
	return new IngestError(FILE, problem, field);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
	if (v === null) return 'null';
	if (Array.isArray(v)) return 'a list';
	if (typeof v === 'object') return 'a mapping';
	if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
	return `${typeof v} ${String(v)}`;
}

function firstLine(e: unknown): string {
	const msg = e instanceof Error ? e.message : String(e);
	return msg.split('\n')[0].trim();
}
