// A dbt artifact's JSON document read from its bytes one entry at a time: the top-level object's
// sections, and each entry of the object sections, are cut out of the bytes by a structural scan
// and parsed alone. The whole document never exists as one string (a manifest of tens of MB is
// as many MB of string again, beside its parsed objects: bench/README.md, "ingest"), and sections
// the caller does not keep are parsed entry by entry and dropped, so they are validated as
// JSON.parse would but never held. The result is what JSON.parse of the whole text gives, minus
// the dropped sections.
//
// Any problem (bad JSON, bad UTF-8, a document that is not an object) is a JsonSectionsError
// without detail: the caller then reads the text whole, so the user gets JSON.parse's own message
// with its line and column. Every byte is checked once: the framing (braces, colons and commas of
// the top-level object and of the sections read entry by entry) here, everything else by the
// JSON.parse of the slice it belongs to.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The bytes are not a JSON object this reader could cut; read the text whole for the reason. */
export class JsonSectionsError extends Error {}

export interface SectionsOptions {
	/** Top-level keys whose object values are read entry by entry (the big ones); others whole. */
	entryWise: ReadonlySet<string>;
	/** Top-level keys kept in the result; the others are parsed (validated) and dropped. */
	keep: (key: string) => boolean;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

class Cutter {
	private readonly decoder = new TextDecoder('utf-8', { fatal: true });
	constructor(private readonly bytes: Uint8Array) {}

	fail(): never {
		throw new JsonSectionsError('not a JSON object this reader can cut');
	}

	skipSpace(at: number): number {
		const bytes = this.bytes;
		while (at < bytes.length && isSpace(bytes[at])) at++;
		return at;
	}

	expect(at: number, byte: number): number {
		if (this.bytes[at] !== byte) this.fail();
		return at + 1;
	}

	/** The index after the closing quote of the string opening at `at`. */
	stringEnd(at: number): number {
		const bytes = this.bytes;
		let from = at + 1;
		for (;;) {
			const quote = bytes.indexOf(QUOTE, from);
			if (quote < 0) this.fail();
			let backslashes = 0;
			while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
			if (backslashes % 2 === 0) return quote + 1;
			from = quote + 1;
		}
	}

	/** The index after the value starting at `at` (its inside is checked later, by JSON.parse). */
	valueEnd(at: number): number {
		const bytes = this.bytes;
		const first = bytes[at];
		if (first === QUOTE) return this.stringEnd(at);
		if (first === OPEN_BRACE || first === OPEN_BRACKET) {
			let depth = 0;
			let index = at;
			while (index < bytes.length) {
				const byte = bytes[index];
				if (byte === QUOTE) {
					index = this.stringEnd(index);
					continue;
				}
				if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
				else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
					depth--;
					if (depth === 0) return index + 1;
				}
				index++;
			}
			this.fail();
		}
		let index = at;
		while (index < bytes.length) {
			const byte = bytes[index];
			if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
			index++;
		}
		if (index === at) this.fail();
		return index;
	}

	parse(from: number, to: number): unknown {
		try {
			return JSON.parse(this.decoder.decode(this.bytes.subarray(from, to)));
		} catch {
			return this.fail();
		}
	}

	/**
	 * Walks the object opening at `at`, calling `onEntry(key, valueStart, valueEnd)` per member;
	 * returns the index after its closing brace.
	 */
	members(at: number, onEntry: (key: string, from: number, to: number) => void): number {
		let index = this.skipSpace(this.expect(at, OPEN_BRACE));
		if (this.bytes[index] === CLOSE_BRACE) return index + 1;
		for (;;) {
			if (this.bytes[index] !== QUOTE) this.fail();
			const keyEnd = this.stringEnd(index);
			const key = this.parse(index, keyEnd) as string;
			index = this.skipSpace(this.expect(this.skipSpace(keyEnd), COLON));
			const valueEnd = this.valueEnd(index);
			onEntry(key, index, valueEnd);
			index = this.skipSpace(valueEnd);
			if (this.bytes[index] === CLOSE_BRACE) return index + 1;
			index = this.skipSpace(this.expect(index, COMMA));
		}
	}
}

/** Sets a member as JSON.parse does: `__proto__` becomes an own property, never the prototype. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
	if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
	else target[key] = value;
}

/** The document's top-level object, read section by section (see the head of this file). */
export function readJsonSections(bytes: Uint8Array, opts: SectionsOptions): Record<string, unknown> {
	const cutter = new Cutter(bytes);
	const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
	const start = cutter.skipSpace(hasBom ? 3 : 0);
	const doc: Record<string, unknown> = {};
	const end = cutter.members(start, (key, from, to) => {
		const kept = opts.keep(key);
		if (opts.entryWise.has(key) && bytes[from] === OPEN_BRACE) {
			const section: Record<string, unknown> = {};
			cutter.members(from, (entryKey, entryFrom, entryTo) => {
				const value = cutter.parse(entryFrom, entryTo);
				if (kept) setMember(section, entryKey, value);
			});
			if (kept) setMember(doc, key, section);
			return;
		}
		const value = cutter.parse(from, to);
		if (kept) setMember(doc, key, value);
	});
	if (cutter.skipSpace(end) !== bytes.length) cutter.fail();
	return doc;
}
