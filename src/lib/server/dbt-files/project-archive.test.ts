import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { create, Header } from 'tar';
import { describe, expect, it } from 'vitest';
import { ARCHIVE_LIMITS, inspectProjectArchive } from './project-archive';

async function tarOf(files: Record<string, string>, extra?: (dir: string) => void): Promise<Uint8Array> {
	const dir = mkdtempSync(path.join(tmpdir(), 'trib-tar-'));
	for (const [p, c] of Object.entries(files)) {
		mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
		writeFileSync(path.join(dir, p), c);
	}
	extra?.(dir);
	const chunks: Buffer[] = [];
	const stream = create({ gzip: true, cwd: dir, portable: true }, ['.']);
	for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
	return new Uint8Array(Buffer.concat(chunks));
}

/** A hand-made tar with one entry whose name tar's own writer would refuse to produce. */
function rawTar(name: string, body = 'x'): Uint8Array {
	const h = new Header({ path: name, mode: 0o644, size: body.length, type: 'File', mtime: new Date(0) });
	const header = Buffer.alloc(512);
	h.encode(header, 0);
	const data = Buffer.alloc(512);
	data.write(body);
	const end = Buffer.alloc(1024);
	return new Uint8Array(gzipSync(Buffer.concat([header, data, end])));
}

describe('inspectProjectArchive', () => {
	it('accepts a project directory', async () => {
		const t = await tarOf({ 'dbt_project.yml': 'name: x', 'models/a.sql': 'select 1' });
		const s = await inspectProjectArchive(t);
		expect(s.files).toBe(2);
		expect(s.hasDbtProject).toBe(true);
	});

	it.each([
		['a parent-directory escape', rawTar('../evil.sql'), /entry "\.\.\/evil\.sql" escapes the project directory/],
		['a nested escape', rawTar('models/../../evil.sql'), /escapes the project directory/],
		['an absolute path', rawTar('/etc/passwd'), /absolute path/],
		['bytes that are not gzip', new TextEncoder().encode('hello'), /not a gzip-compressed tar archive/],
		['gzip that is not tar', new Uint8Array(gzipSync(Buffer.from('just text, not a tar file at all'.repeat(40)))), /project/]
	])('refuses %s', async (_name, data, re) => {
		await expect(inspectProjectArchive(data)).rejects.toThrow(re);
	});

	it('refuses a symlink', async () => {
		const t = await tarOf({ 'dbt_project.yml': 'name: x' }, (dir) => symlinkSync('/etc/passwd', path.join(dir, 'link')));
		await expect(inspectProjectArchive(t)).rejects.toThrow(/entry "\.?\/?link" is a SymbolicLink/);
	});

	it('refuses an archive without dbt_project.yml', async () => {
		const t = await tarOf({ 'models/a.sql': 'select 1' });
		await expect(inspectProjectArchive(t)).rejects.toThrow(/no dbt_project\.yml/);
	});
});

/** A valid project tar, then `trailing` bytes after its end marker, gzipped as one stream. */
function tarWithTrailing(trailing: Buffer): Uint8Array {
	const body = 'name: x';
	const h = new Header({ path: 'dbt_project.yml', mode: 0o644, size: body.length, type: 'File', mtime: new Date(0) });
	const header = Buffer.alloc(512);
	h.encode(header, 0);
	const data = Buffer.alloc(512);
	data.write(body);
	return new Uint8Array(gzipSync(Buffer.concat([header, data, Buffer.alloc(1024), trailing])));
}

describe('bytes after the end marker', () => {
	it('accepts the zero padding tar writers add up to a full record', async () => {
		const s = await inspectProjectArchive(tarWithTrailing(Buffer.alloc(8 * 1024)));
		expect(s.files).toBe(1);
	});

	// Zeros gzip to almost nothing: node-tar alone buffered them quadratically (its cost is in bench/, not here).
	it.each([
		['64 KB of random bytes', () => randomBytes(64 * 1024)],
		['10 MB of random bytes', () => randomBytes(10 * 1024 * 1024)],
		['8 MB of zeros (an 8 KB upload)', () => Buffer.alloc(8 * 1024 * 1024)]
	])('refuses %s, naming the archive and the limit', async (_name, trailing) => {
		const archive = tarWithTrailing(trailing());
		await expect(inspectProjectArchive(archive)).rejects.toThrow(
			new RegExp(`^project: has more than ${ARCHIVE_LIMITS.maxBytesAfterEnd / 1024} KB after the tar's end marker`)
		);
	});
});
