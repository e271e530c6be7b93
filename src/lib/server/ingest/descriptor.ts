// The dbt script's descriptor: a small YAML document saying which warehouse the project builds
// into, what it selects, and how runs behave (DESIGN.md §7). Every field is optional; an empty
// or absent descriptor means "the whole project on the `main` warehouse".
import { parse } from 'yaml';
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
	/** Keys this version does not know; kept as warnings rather than refused, so a newer descriptor still deploys. */
	warnings: string[];
}

const KNOWN_KEYS = new Set(['profile', 'select', 'exclude', 'selector', 'vars', 'test_behavior', 'column_lineage', 'retry_failed_nodes']);

// The warehouse name is the authority part of `dbt://<warehouse>/...`, so it follows the same
// segment rule as path segments: a `/` or `:` in it would make the URI mean something else.
const WAREHOUSE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function parseDescriptor(text: string | null | undefined): DbtDescriptor {
	let doc: unknown;
	try {
		doc = text == null || text.trim() === '' ? null : parse(text);
	} catch (e) {
		throw new IngestError(FILE, `is not valid YAML: ${firstLine(e)}`);
	}
	const out: DbtDescriptor = {
		warehouse: DEFAULT_WAREHOUSE,
		select: [],
		exclude: [],
		selector: null,
		vars: {},
		testBehavior: 'build',
		columnLineage: false,
		retryFailedNodes: null,
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
				throw fieldError('profile.warehouse', `must be a warehouse name of letters, digits, \`_\` and \`-\`, not ${describe(wh)}`);
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
		out.selector = doc.selector.trim();
	}
	if (doc.vars != null) {
		if (!isPlainObject(doc.vars)) throw fieldError('vars', `must be a mapping of variable names to values, not ${describe(doc.vars)}`);
		out.vars = doc.vars;
	}
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
		if (item.trim() !== '') out.push(item.trim());
	});
	return out;
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
