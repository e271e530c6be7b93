import { describe, expect, it } from 'vitest';
import { jsonNulOffset, refuseJsonNul } from './json-nul';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('a NUL character in an uploaded JSON file', () => {
	it('is found as the escape JSON carries it in, not as an escaped backslash before u0000', () => {
		expect(jsonNulOffset(bytes('{"a":"x\\u0000"}'))).toBe(7);
		expect(jsonNulOffset(bytes('{"a":"x\\\\u0000"}'))).toBe(-1);
		expect(jsonNulOffset(bytes('{"a":"\\\\\\u0000"}'))).toBe(8);
		expect(jsonNulOffset(bytes('{"a":"\\\\u0000","b":"\\u0000"}'))).toBe(20);
		expect(jsonNulOffset(bytes('{"a":"no nul \\u0001"}'))).toBe(-1);
	});

	it('is a 400 naming the field, the file and where', () => {
		expect(() => refuseJsonNul('manifest', { name: 'manifest.json', bytes: bytes('{"d":"a\\u0000"}') })).toThrow(
			expect.objectContaining({ status: 400, message: 'manifest: manifest.json holds a NUL character (\\u0000) at byte 7, which cannot be stored' })
		);
		expect(refuseJsonNul('catalog', undefined)).toBeUndefined();
	});
});
