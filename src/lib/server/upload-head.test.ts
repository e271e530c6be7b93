import { describe, expect, it } from 'vitest';
import { leadingFields, readUploadHead } from './upload-head';

/** A body as fetch serialises a FormData (the CLI's and the browser's encoder). */
async function encoded(form: FormData): Promise<{ bytes: Buffer; type: string }> {
	const r = new Response(form);
	return { bytes: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type')! };
}

const boundaryOf = (type: string) => /boundary=(.+)$/.exec(type)![1];

function deployForm(): FormData {
	const f = new FormData();
	f.set('path', 'f/analytics/jaffle');
	f.set('descriptor', 'profile:\n  warehouse: main\r\n--not-a-boundary\n');
	f.set('manifest', new Blob(['{"metadata": {}}']), 'manifest.json');
	f.set('late', 'after the file');
	return f;
}

describe('leadingFields', () => {
	it('reads the fields before the first file, from every prefix of the body', async () => {
		const { bytes, type } = await encoded(deployForm());
		const boundary = boundaryOf(type);
		// What the platform's own parser reads from the same bytes (it sends newlines as CRLF).
		const parsed = await new Response(new Uint8Array(bytes), { headers: { 'content-type': type } }).formData();
		const expected = { path: parsed.get('path'), descriptor: parsed.get('descriptor') };
		expect(expected.descriptor).toMatch(/--not-a-boundary/);
		let firstDone = -1;
		for (let n = 0; n <= bytes.length; n++) {
			const r = leadingFields(bytes.subarray(0, n), boundary);
			if (r.done && firstDone < 0) firstDone = n;
			if (r.done) {
				expect(Object.fromEntries(r.fields)).toEqual(expected);
			}
		}
		// Done as soon as the file part's headers are in: the file's bytes are not needed.
		expect(firstDone).toBe(bytes.indexOf('{"metadata"'));
	});

	it('is done at the closing delimiter of a body without files', async () => {
		const f = new FormData();
		f.set('path', 'u/alice/x');
		const { bytes, type } = await encoded(f);
		const r = leadingFields(bytes, boundaryOf(type));
		expect(r).toEqual({ done: true, fields: new Map([['path', 'u/alice/x']]) });
	});
});

describe('readUploadHead', () => {
	it('gives back the whole body for formData() after reading its head', async () => {
		const { bytes, type } = await encoded(deployForm());
		let offset = 0;
		const body = new ReadableStream<Uint8Array>({
			pull(c) {
				if (offset >= bytes.length) return c.close();
				c.enqueue(bytes.subarray(offset, offset + 7));
				offset += 7;
			}
		});
		const request = new Request('http://x/deploy', { method: 'POST', headers: { 'content-type': type }, body, duplex: 'half' } as RequestInit);
		const head = await readUploadHead(request, new URL('http://x/deploy'), 'a file');
		expect(head.path).toBe('f/analytics/jaffle');
		expect(offset).toBeLessThan(bytes.length);
		const form = await head.request.formData();
		expect(form.get('late')).toBe('after the file');
		expect(await (form.get('manifest') as File).text()).toBe('{"metadata": {}}');
	});

	it('takes ?path= over the form, and refuses a body that is not multipart', async () => {
		const { bytes, type } = await encoded(deployForm());
		const request = new Request('http://x/d', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(bytes) });
		expect((await readUploadHead(request, new URL('http://x/d?path=u/bob/y'), 'a file')).path).toBe('u/bob/y');
		const json = new Request('http://x/d', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		await expect(readUploadHead(json, new URL('http://x/d'), 'a `manifest` file')).rejects.toThrow(/multipart\/form-data with a `manifest` file/);
	});
});
