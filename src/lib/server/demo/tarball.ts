// A minimal ustar writer: the project archive is built from an in-memory file map, and a fixed
// mtime/owner keeps the bytes identical for identical input (node-tar packs from disk only).
import { gzipSync } from 'node:zlib';

const BLOCK = 512;
const MTIME = Math.floor(Date.UTC(2026, 0, 1) / 1000);

function octal(n: number, width: number): string {
	return n.toString(8).padStart(width - 1, '0') + '\0';
}

function splitName(path: string): { name: string; prefix: string } {
	if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
	// ustar: a 155-byte prefix and a 100-byte name, split at a '/'.
	for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
		const prefix = path.slice(0, i);
		const name = path.slice(i + 1);
		if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
	}
	throw new Error(`path too long for a ustar archive: ${path}`);
}

function header(path: string, size: number, type: '0' | '5'): Buffer {
	const h = Buffer.alloc(BLOCK);
	const { name, prefix } = splitName(path);
	h.write(name, 0, 100, 'utf8');
	h.write(octal(type === '5' ? 0o755 : 0o644, 8), 100, 'ascii');
	h.write(octal(0, 8), 108, 'ascii');
	h.write(octal(0, 8), 116, 'ascii');
	h.write(octal(size, 12), 124, 'ascii');
	h.write(octal(MTIME, 12), 136, 'ascii');
	h.fill(' ', 148, 156);
	h.write(type, 156, 'ascii');
	h.write('ustar\0', 257, 'ascii');
	h.write('00', 263, 'ascii');
	h.write(prefix, 345, 155, 'utf8');
	let sum = 0;
	for (const b of h) sum += b;
	h.write(octal(sum, 7) + ' ', 148, 'ascii');
	return h;
}

/** tar.gz of the files, each directory entry written before the first file under it. */
export function tarGz(files: Map<string, string | Uint8Array>): Uint8Array {
	const parts: Buffer[] = [];
	const dirs = new Set<string>();
	for (const [path, content] of files) {
		const segments = path.split('/');
		for (let i = 1; i < segments.length; i++) {
			const dir = `${segments.slice(0, i).join('/')}/`;
			if (dirs.has(dir)) continue;
			dirs.add(dir);
			parts.push(header(dir, 0, '5'));
		}
		const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
		parts.push(header(path, body.length, '0'), body);
		const pad = (BLOCK - (body.length % BLOCK)) % BLOCK;
		if (pad) parts.push(Buffer.alloc(pad));
	}
	parts.push(Buffer.alloc(BLOCK * 2));
	return new Uint8Array(gzipSync(Buffer.concat(parts), { level: 9 }));
}
