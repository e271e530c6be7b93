import { describe, expect, it } from 'vitest';
import { JsonSectionsError, readJsonSections, type SectionsOptions } from './json-sections';

const encode = (text: string) => new TextEncoder().encode(text);
const ENTRY_WISE = new Set(['nodes', 'macros', 'parent_map']);
const keepAll: SectionsOptions = { entryWise: ENTRY_WISE, keep: () => true };
const withoutMacros: SectionsOptions = { entryWise: ENTRY_WISE, keep: (key) => key !== 'macros' };

/** JSON.parse of the whole text, minus the top-level keys `opts` drops: what the reader must give. */
function expected(text: string, opts: SectionsOptions): unknown {
	const doc = JSON.parse(text) as Record<string, unknown>;
	for (const key of Object.keys(doc)) if (!opts.keep(key)) delete doc[key];
	return doc;
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

// Named documents: each is read with every section kept and with `macros` dropped.
const DOCUMENTS: [string, string][] = [
	['empty object', '{}'],
	['empty sections', '{"nodes": {}, "macros": {}, "parent_map": {}}'],
	['scalars of every kind', '{"a": 1, "b": -2.5e3, "c": true, "d": false, "e": null, "f": "x", "nodes": {"n": 0, "m": "s", "o": null}}'],
	[
		'escaped quotes and backslashes',
		String.raw`{"nodes": {"a\"b": {"sql": "say \"hi\" \\", "x": "\\\\"}, "c\\": "\\\"", "d": ["\"", "\\", "}", "{", "]"]}, "macros": {"m": "\\\\\\\"}"}}`
	],
	['unicode and escapes', String.raw`{"nodes": {"modèle.é→𝄞": {"name": "\u00e9\ud834\udd1e", "t": "\t\n\r\b\f\/"}}, "clé": "𝄞"}`],
	['nested structures in entries', '{"nodes": {"a": {"deep": [[{"x": [1, {"y": {}}]}], []], "z": {"w": [{}]}}}, "macros": {"m": [[], {}]}}'],
	['a section that is not an object', '{"nodes": [1, {"a": 2}], "macros": null, "parent_map": "x"}'],
	['duplicate keys: the last wins', '{"nodes": {"a": 1, "a": 2}, "nodes": {"b": 3}, "x": 1, "x": 2}'],
	[
		'pretty-printed with every kind of white space',
		pretty({ metadata: { v: 1 }, nodes: { a: { b: [1, 2], c: 's' } }, macros: { m: { sql: 'x' } } }).replace(/\n/g, '\r\n\t')
	],
	['white space around everything', ' \n\t{ "nodes" :\n{ "a" : [ 1 , 2 ] ,\r\n "b" : { } } , "macros" : { } } \n ']
];

describe('readJsonSections gives what JSON.parse gives', () => {
	it.each(DOCUMENTS)('%s', (_name, text) => {
		for (const opts of [keepAll, withoutMacros]) {
			expect(readJsonSections(encode(text), opts)).toEqual(expected(text, opts));
		}
	});

	it('skips a byte order mark as TextDecoder does', () => {
		const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{"nodes": {"a": 1}}')]);
		expect(readJsonSections(bytes, keepAll)).toEqual({ nodes: { a: 1 } });
	});

	it('`__proto__` becomes an own member, never the prototype (as JSON.parse)', () => {
		const doc = readJsonSections(encode('{"__proto__": {"polluted": 1}, "nodes": {"__proto__": {"polluted": 2}}}'), keepAll);
		expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value).toEqual({ polluted: 1 });
		const nodes = doc.nodes as Record<string, unknown>;
		expect(Object.getPrototypeOf(nodes)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(nodes, '__proto__')?.value).toEqual({ polluted: 2 });
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it('keeps the members in the document order', () => {
		const text = '{"z": 1, "nodes": {"b": 1, "a": 2, "10": 3}, "a": 2}';
		const doc = readJsonSections(encode(text), keepAll);
		expect(Object.keys(doc)).toEqual(Object.keys(JSON.parse(text)));
		expect(Object.keys(doc.nodes as object)).toEqual(Object.keys(JSON.parse(text).nodes));
	});
});

// Each must be refused, wherever the fault is: in the framing, in a kept section or in a dropped one.
const REFUSED: [string, string | Uint8Array][] = [
	['empty', ''],
	['white space only', ' \n '],
	['truncated in a string', '{"nodes": {"a": "abc'],
	['truncated in an entry', '{"nodes": {"a": {"b": [1, 2'],
	['truncated after a member', '{"nodes": {"a": 1},'],
	['no closing brace', '{"nodes": {"a": 1}'],
	['a missing comma', '{"nodes": {"a": 1 "b": 2}}'],
	['a trailing comma', '{"nodes": {"a": 1,}}'],
	['a missing colon', '{"nodes" {"a": 1}}'],
	['an unquoted key', '{nodes: {}}'],
	['garbage after the document', '{"nodes": {}} x'],
	['a second document', '{"nodes": {}}{}'],
	['a bad literal in a kept entry', '{"nodes": {"a": tru}}'],
	['a bad literal in a dropped section', '{"macros": {"m": nul}, "nodes": {}}'],
	['a bad escape in a dropped section', '{"macros": {"m": "\\x"}, "nodes": {}}'],
	['mismatched brackets in an entry', '{"nodes": {"a": [1, 2}}}'],
	['a bad top-level value', '{"metadata": {"a": 1,}}'],
	['bad UTF-8 in a dropped section', new Uint8Array([...encode('{"macros": {"m": "'), 0xff, 0xfe, ...encode('"}, "nodes": {}}')])],
	['bad UTF-8 in a key', new Uint8Array([...encode('{"'), 0xc3, ...encode('": 1}')])]
];

describe('readJsonSections refuses what JSON.parse refuses', () => {
	it.each(REFUSED)('%s', (_name, input) => {
		const bytes = typeof input === 'string' ? encode(input) : input;
		expect(() => readJsonSections(bytes, withoutMacros)).toThrow(JsonSectionsError);
		expect(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))).toThrow();
	});

	it.each(['[1, 2]', '"nodes"', '12', 'null'])('a document that is valid JSON but no object: %s', (text) => {
		// The caller reads the text whole and names what the document is instead.
		expect(() => readJsonSections(encode(text), keepAll)).toThrow(JsonSectionsError);
	});
});
