// What may become a word of dbt's command line. Selectors (`select`, `exclude`, `selector`, a
// `show` model) each become their own argv word, and dbt reads a word starting with `-` as an
// option of its own (`--target-path /elsewhere`); a NUL cannot be passed to a process at all
// (spawn throws). The descriptor (at deploy) and a run's arguments (when queued) are checked by
// the same rules, so a refusal is a 400 naming the field before anything is stored or queued.

/** Longest selector (or vars key) accepted: dbt selectors are short; this only bounds abuse. */
export const MAX_ARGV_WORD = 1000;

/** What is wrong with a value that becomes one argv word, or null when it may. */
export function argvWordProblem(s: string): string | null {
	if (s.includes('\u0000')) return 'must not contain a NUL character';
	if (s.startsWith('-')) return 'must not start with "-" (it would read as a dbt option)';
	if (s.length > MAX_ARGV_WORD) return `is longer than ${MAX_ARGV_WORD} characters`;
	return null;
}

/**
 * The first place in a JSON-like value where a string (a key or a value) holds a NUL, as a field
 * path under `field` (`vars.a[2]`), or null. `--vars` is one argv word: any NUL inside it would
 * make the process impossible to start.
 */
export function nulIn(v: unknown, field: string, depth = 0): string | null {
	if (depth > 64) return null;
	if (typeof v === 'string') return v.includes('\u0000') ? field : null;
	if (Array.isArray(v)) {
		for (const [i, x] of v.entries()) {
			const found = nulIn(x, `${field}[${i}]`, depth + 1);
			if (found) return found;
		}
		return null;
	}
	if (typeof v === 'object' && v !== null) {
		for (const [k, x] of Object.entries(v)) {
			if (k.includes('\u0000')) return field;
			const found = nulIn(x, `${field}.${k}`, depth + 1);
			if (found) return found;
		}
	}
	return null;
}
