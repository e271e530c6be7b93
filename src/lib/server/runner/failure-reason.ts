// Why a dbt node failed, in words that quote nothing of the project: dbt's error kind, the node,
// and what went wrong as a category ("a referenced column was not found"). dbt's own message
// quotes SQL, identifiers, file paths and values, so it goes to readers of the project only; this
// is what a viewer without that right (a share link, a member of another folder) is told instead.

/** What the warehouse or dbt said, matched in order; each phrase names no identifier or value. */
const CAUSES: readonly [RegExp, string][] = [
	[/depends on a node named .* which was not found|node named .* was not found/i, 'it refers to a model, seed or source that does not exist'],
	[/referenced column .* not found|column .* (does not exist|not found)|invalid identifier|unrecognized name|column not found/i, 'a referenced column was not found'],
	[/table with name .* does not exist|relation .* does not exist|table .* (does not exist|not found|was not found)|object .* does not exist|catalog error/i, 'a referenced table or view was not found'],
	[/no matching signature|no function matches|function .* does not exist|scalar function .* does not exist|function .* not found|unknown function/i, 'a function was not found for the given arguments'],
	[/syntax error|parser error|unexpected '/i, 'the SQL could not be parsed'],
	[/division by zero|divide by zero/i, 'a division by zero'],
	[/conversion error|invalid input syntax|could not convert|cannot be cast|cannot cast|invalid (date|timestamp|number)/i, 'a value could not be converted to its type'],
	[/constraint error|violates .*constraint|not null constraint|duplicate key/i, 'a constraint was violated'],
	[/permission denied|insufficient privileges|access denied|not authorized/i, 'the warehouse refused access'],
	[/out of memory|memory limit/i, 'the warehouse ran out of memory'],
	[/statement timeout|timed out|timeout/i, 'the query timed out'],
	[/could not connect|connection refused|connection (was )?(closed|reset)|could not open/i, 'the warehouse could not be reached'],
	[/binder error/i, 'the SQL names something the warehouse cannot resolve']
];

/** "model orders", "test not_null_orders_id", "seed raw_orders" from a unique id. */
export function nodeLabel(uniqueId: string): string {
	const parts = uniqueId.split('.');
	if (parts.length < 3) return uniqueId;
	const [type, , ...rest] = parts;
	// A source's id is source.<package>.<source>.<table>; others' third part is the node's name
	// (a test's fourth is a hash, a versioned model's a version).
	return `${type} ${type === 'source' ? rest.join('.') : rest[0]}`;
}

/** dbt's failed-test message: "Got 3 results, configured to fail if != 0". */
const TEST_RESULT = /^Got (\d+) results?, configured to (fail|warn) if /;

/**
 * The sourceless reason of one node's failure or warning, from dbt's message: e.g. "Database
 * error in model orders: a referenced column was not found". Only dbt's error kind, the node's
 * type and name (the run's shape, which every viewer of the run sees) and a fixed phrase.
 */
export function sourcelessReason(uniqueId: string, message: string | null | undefined, failures?: number | null): string {
	const node = nodeLabel(uniqueId);
	const text = message ?? '';
	const test = TEST_RESULT.exec(text.trim());
	if (test) {
		const n = Number(test[1]);
		return `${node} ${test[2] === 'warn' ? 'warned' : 'failed'}: ${n.toLocaleString('en-US')} failing row${n === 1 ? '' : 's'}`;
	}
	// dbt's first line: "<Kind> Error in <type> <name> (<path>)"; the kind is the only part kept.
	const kindMatch = /^\s*([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*) Error\b/.exec(text);
	const kind = kindMatch ? `${kindMatch[1][0]}${kindMatch[1].slice(1).toLowerCase()} error` : null;
	const cause = CAUSES.find(([re]) => re.test(text))?.[1] ?? null;
	if (kind && cause) return `${kind} in ${node}: ${cause}`;
	if (kind) return `${kind} in ${node}`;
	if (cause) return `${node} failed: ${cause}`;
	if (typeof failures === 'number' && failures > 0) return `${node} failed: ${failures.toLocaleString('en-US')} failing row${failures === 1 ? '' : 's'}`;
	return `${node} failed`;
}
