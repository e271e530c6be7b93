// An MCP answer bounded in size: an assistant's context is small, and one tool call must not
// fill it. Long strings (SQL) are cut first, then the longest lists halved until the JSON fits;
// every cut is said in `truncated` (path → what was left out), never silent.

/** Characters of one answer's JSON at most. */
export const MAX_ANSWER_CHARS = 60_000;
/** One string (a model's SQL, a description) at most. */
export const MAX_STRING_CHARS = 8_000;

type Json = unknown;

function cutStrings(v: Json, path: string, notes: Record<string, string>, depth = 0): Json {
	if (typeof v === 'string') {
		if (v.length <= MAX_STRING_CHARS) return v;
		notes[path || '.'] = `cut to ${MAX_STRING_CHARS} of ${v.length} characters`;
		return v.slice(0, MAX_STRING_CHARS);
	}
	if (depth > 32 || v === null || typeof v !== 'object') return v;
	if (Array.isArray(v)) return v.map((x, i) => cutStrings(x, `${path}[${i}]`, notes, depth + 1));
	return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutStrings(x, path ? `${path}.${k}` : k, notes, depth + 1)]));
}

/** The longest array anywhere in `v` (by its JSON length), with the path to it. */
function longestArray(v: Json, path: string, depth = 0): { path: string; arr: unknown[]; size: number } | null {
	if (depth > 32 || v === null || typeof v !== 'object') return null;
	let best: { path: string; arr: unknown[]; size: number } | null = null;
	const consider = (c: { path: string; arr: unknown[]; size: number } | null) => {
		if (c && (!best || c.size > best.size)) best = c;
	};
	if (Array.isArray(v)) {
		if (v.length > 1) consider({ path, arr: v, size: JSON.stringify(v).length });
		v.forEach((x, i) => consider(longestArray(x, `${path}[${i}]`, depth + 1)));
	} else for (const [k, x] of Object.entries(v)) consider(longestArray(x, path ? `${path}.${k}` : k, depth + 1));
	return best;
}

/** The answer as JSON text within `max` characters; `truncated` lists what was cut. */
export function fitAnswer(answer: Json, max = MAX_ANSWER_CHARS): string {
	const notes: Record<string, string> = {};
	const v = cutStrings(answer, '', notes) as Json;
	let text = JSON.stringify(v);
	const original = new Map<unknown[], number>();
	while (text.length > max) {
		const a = longestArray(v, '');
		if (!a) break;
		if (!original.has(a.arr)) original.set(a.arr, a.arr.length);
		a.arr.length = Math.floor(a.arr.length / 2);
		notes[a.path || '.'] = `${a.arr.length} of ${original.get(a.arr)} items listed: the answer is bounded to ${max} characters`;
		text = JSON.stringify(withNotes(v, notes));
	}
	if (Object.keys(notes).length === 0) return text;
	text = JSON.stringify(withNotes(v, notes));
	// Nothing left to halve (one huge scalar structure): the text itself is cut, and says so.
	return text.length <= max ? text : `${text.slice(0, max)}\n… [answer cut at ${max} characters]`;
}

function withNotes(v: Json, notes: Record<string, string>): Json {
	const truncated = { ...notes };
	if (v && typeof v === 'object' && !Array.isArray(v)) {
		const prev = (v as Record<string, unknown>).truncated;
		return { ...(v as object), truncated: prev === undefined ? truncated : { answer: prev, ...truncated } };
	}
	return { answer: v, truncated };
}
