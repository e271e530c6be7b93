// The bytes a multipart part is kept in: whole and in order across the blocks they are kept in,
// and handed back over an ArrayBuffer of exactly their size (what is moved to the parse thread).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readMultipart, type MultipartSpec } from './multipart';

const SPEC: MultipartSpec = {
	files: {
		manifest: { name: 'manifest.json', what: 'manifest', limit: { bytes: 64 << 20, env: 'TRIBUTARY_MAX_MANIFEST_MB' } },
		catalog: { name: 'catalog.json', what: 'catalog', limit: { bytes: 64 << 20, env: 'TRIBUTARY_MAX_CATALOG_MB' } }
	},
	fields: ['path'],
	what: 'a `manifest` file'
};

/** A multipart request whose body arrives in `chunk`-byte pieces, as a socket hands it over. */
async function formRequest(form: FormData, chunk: number): Promise<Request> {
	const encoded = new Response(form);
	const type = encoded.headers.get('content-type')!;
	const body = new Uint8Array(await encoded.arrayBuffer());
	let at = 0;
	const stream = new ReadableStream<Uint8Array>({
		pull(c) {
			if (at >= body.length) return c.close();
			c.enqueue(body.slice(at, at + chunk));
			at += chunk;
		}
	});
	return new Request('http://x/', { method: 'POST', body: stream, headers: { 'content-type': type }, duplex: 'half' } as RequestInit);
}

describe('readMultipart keeps each part whole', () => {
	it('a file across many blocks comes back byte for byte, over a buffer of its own size', async () => {
		// Over three of the 8 MB blocks and not a multiple of any chunk size.
		const big = randomBytes(25 * 1024 * 1024 + 12_345);
		const small = randomBytes(1000);
		const form = new FormData();
		form.set('path', 'u/admin/p');
		form.set('manifest', new Blob([big]), 'manifest.json');
		form.set('catalog', new Blob([small]), 'catalog.json');
		const body = await readMultipart(await formRequest(form, 65_536 + 7), SPEC);
		const got = body.files.get('manifest')!.bytes;
		expect(got.length).toBe(big.length);
		expect(Buffer.from(got).equals(big)).toBe(true);
		expect(got.byteOffset).toBe(0);
		expect(got.buffer.byteLength).toBe(big.length);
		const cat = body.files.get('catalog')!.bytes;
		expect(Buffer.from(cat).equals(small)).toBe(true);
		expect(cat.buffer.byteLength).toBe(small.length);
		expect(body.fields.get('path')).toBe('u/admin/p');
	});

	it('a part whose first piece is larger than the first block', async () => {
		const big = randomBytes(3 * 1024 * 1024 + 5);
		const form = new FormData();
		form.set('manifest', new Blob([big]), 'manifest.json');
		// One piece holds the whole body: the part's first chunk fills many blocks at once.
		const body = await readMultipart(await formRequest(form, 8 * 1024 * 1024), SPEC);
		expect(Buffer.from(body.files.get('manifest')!.bytes).equals(big)).toBe(true);
	});

	it('an empty file part is an empty file', async () => {
		const form = new FormData();
		form.set('manifest', new Blob([]), 'manifest.json');
		const body = await readMultipart(await formRequest(form, 1000), SPEC);
		expect(body.files.get('manifest')!.bytes.length).toBe(0);
	});
});
