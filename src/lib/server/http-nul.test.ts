import { describe, expect, it } from 'vitest';
import { nulPath, readJsonObject } from './http';

const post = (body: string) => new Request('http://x/', { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('JSON bodies with a NUL character', () => {
	it('are a 400 naming where the NUL is, in a value or a key', async () => {
		await expect(readJsonObject(post('{"name":"main","settings":{"a":["ok","x\\u0000y"]}}'))).rejects.toMatchObject({
			status: 400,
			message: '$.settings.a[1]: contains a NUL character (\\u0000), which cannot be stored'
		});
		await expect(readJsonObject(post('{"settings":{"k\\u0000":1}}'))).rejects.toMatchObject({ status: 400, message: expect.stringContaining('$.settings.k\\u0000:') });
	});

	it('pass through when there is none, and an escaped backslash before u0000 is no NUL', async () => {
		expect(await readJsonObject(post('{"a":"\\\\u0000","b":[1,{"c":null}]}'))).toEqual({ a: '\\u0000', b: [1, { c: null }] });
	});

	it('are walked without recursion, however deep they nest', () => {
		const depth = 200_000;
		const deep = JSON.parse('['.repeat(depth) + '"\\u0000"' + ']'.repeat(depth));
		const found = nulPath(deep, '$');
		expect(found?.length).toBe(1 + 3 * depth);
	});
});
