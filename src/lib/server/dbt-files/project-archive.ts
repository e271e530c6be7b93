// The project archive (tar.gz of a dbt project without target/, logs/, .env*) is unpacked later
// by the runner, so it is checked entry by entry at upload: a path that escapes its directory,
// a link, or a device file refuses the whole upload before anything is stored.
// We gunzip ourselves and hand node-tar the tar a chunk at a time, stopping at the end marker:
// node-tar, given the gzip, concatenates everything after the end marker into one growing
// buffer, chunk by chunk: quadratic, so a small upload of zeros could hold the thread for seconds.
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { IngestError } from './errors';

export const ARCHIVE_LIMITS = {
	maxEntries: 20_000,
	maxUnpackedBytes: 512 * 1024 * 1024,
	/** Tar writers pad to a whole record: 10 KB by default (blocking factor 20). */
	maxBytesAfterEnd: 32 * 1024
};

export interface ArchiveSummary {
	files: number;
	unpackedBytes: number;
	hasDbtProject: boolean;
}

function badEntryPath(p: string): string | null {
	if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'is an absolute path';
	const parts = p.split(/[\\/]/);
	if (parts.includes('..')) return 'escapes the project directory';
	return null;
}

export async function inspectProjectArchive(data: Uint8Array, file = 'project'): Promise<ArchiveSummary> {
	if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) {
		throw new IngestError(file, 'is not a gzip-compressed tar archive (expected a .tar.gz of the project directory)');
	}
	const summary: ArchiveSummary = { files: 0, unpackedBytes: 0, hasDbtProject: false };
	let problem: IngestError | null = null;
	const parser = new Parser({
		strict: true,
		onReadEntry: (entry: ReadEntry) => {
			entry.resume();
			if (problem) return;
			const p = entry.path;
			const why = badEntryPath(p);
			if (why) problem = new IngestError(file, `entry "${p}" ${why}`);
			else if (entry.type !== 'File' && entry.type !== 'Directory' && entry.type !== 'OldFile') {
				problem = new IngestError(file, `entry "${p}" is a ${entry.type}; only files and directories are accepted`);
			} else {
				if (entry.type !== 'Directory') summary.files++;
				summary.unpackedBytes += entry.size ?? 0;
				if (/^(\.\/)?dbt_project\.yml$/.test(p)) summary.hasDbtProject = true;
				if (summary.files > ARCHIVE_LIMITS.maxEntries) problem = new IngestError(file, `has more than ${ARCHIVE_LIMITS.maxEntries} entries`);
				if (summary.unpackedBytes > ARCHIVE_LIMITS.maxUnpackedBytes) {
					problem = new IngestError(file, `unpacks to more than ${ARCHIVE_LIMITS.maxUnpackedBytes / 1024 / 1024} MB`);
				}
			}
		}
	});
	let sawEnd = false;
	parser.on('eof', () => (sawEnd = true));
	const parsed = new Promise<void>((resolve, reject) => {
		parser.on('error', (e: Error) => {
			problem ??= new IngestError(file, `is not a readable tar.gz (${e.message})`);
			reject(problem);
		});
		parser.on('warn', (_code: string, message: string) => {
			problem ??= new IngestError(file, `is not a readable tar.gz (${message})`);
		});
		parser.on('end', () => resolve());
	});
	// Whatever the parser refuses from here on is already decided: no reason to wait for it.
	parsed.catch(() => {});
	const gunzip = createGunzip();
	gunzip.end(data);
	let first = true;
	let afterEnd = 0;
	try {
		for await (const chunk of gunzip as AsyncIterable<Buffer>) {
			if (first) {
				first = false;
				if ((chunk[0] === 0x1f && chunk[1] === 0x8b) || (chunk.length >= 4 && chunk.readUInt32LE(0) === 0xfd2fb528)) {
					throw new IngestError(file, 'is compressed twice (expected one gzip around a tar archive)');
				}
			}
			if (problem) break;
			if (sawEnd) {
				// The chunk that held the end marker counts from its end: at most one chunk generous.
				afterEnd += chunk.length;
				if (afterEnd > ARCHIVE_LIMITS.maxBytesAfterEnd) {
					throw new IngestError(file, `has more than ${ARCHIVE_LIMITS.maxBytesAfterEnd / 1024} KB after the tar's end marker (a tar archive ends there)`);
				}
				continue;
			}
			parser.write(chunk);
		}
	} catch (e) {
		gunzip.destroy();
		parser.abort(e instanceof Error ? e : new Error(String(e)));
		if (e instanceof IngestError) throw e;
		throw new IngestError(file, `is not a readable tar.gz (${(e as Error).message})`);
	}
	parser.end();
	await parsed;
	if (problem) throw problem;
	if (!summary.hasDbtProject) throw new IngestError(file, 'has no dbt_project.yml at its top level');
	return summary;
}
