// A fresh directory per job, holding the version's project files. The archive was checked at
// upload, and is checked again here entry by entry (it is project input either way): only files
// and directories, nothing absolute, nothing climbing out, within the size and count limits.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { x as extract, type ReadEntry } from 'tar';
import { ARCHIVE_LIMITS } from '../dbt-files/project-archive';

/** Where job directories live (TRIBUTARY_JOBS_DIR, default a folder in the system temp dir). */
export function jobsRoot(): string {
	return path.resolve(process.env.TRIBUTARY_JOBS_DIR || path.join(tmpdir(), 'tributary-jobs'));
}

export interface JobDirs {
	/** The job's own directory: HOME, logs, targets. */
	root: string;
	/** The unpacked project (dbt's --project-dir). */
	project: string;
	/** The rendered profiles.yml lives here (dbt's --profiles-dir). */
	profiles: string;
	logs: string;
	/** `--target-path` of the main invocation. */
	target: string;
	/** `--target-path` of the parse that a run with its own model set makes first. */
	parseTarget: string;
	/** `--target-path` of the column-lineage pass. */
	lineageTarget: string;
	/** `--target-path` of the catalog pass (`dbt docs generate` after a build). */
	catalogTarget: string;
	/** Written while a child runs (outside the project, beside the job dir). */
	pidFile: string;
}

export function jobDirs(jobId: string): JobDirs {
	const root = path.join(jobsRoot(), jobId);
	return {
		root,
		project: path.join(root, 'project'),
		profiles: path.join(root, 'profiles'),
		logs: path.join(root, 'logs'),
		target: path.join(root, 'target'),
		parseTarget: path.join(root, 'target-parse'),
		lineageTarget: path.join(root, 'target-lineage'),
		catalogTarget: path.join(root, 'target-catalog'),
		pidFile: `${root}.pgid`
	};
}

export async function createJobDirs(jobId: string): Promise<JobDirs> {
	const d = jobDirs(jobId);
	// A reclaimed job's directory from a previous attempt is stale: start clean.
	await rm(d.root, { recursive: true, force: true });
	for (const dir of [d.project, d.profiles, d.logs]) await mkdir(dir, { recursive: true, mode: 0o700 });
	return d;
}

export async function removeJobDirs(d: JobDirs): Promise<void> {
	if (process.env.TRIBUTARY_KEEP_JOB_DIRS === '1') return;
	await rm(d.root, { recursive: true, force: true }).catch(() => {});
	await rm(d.pidFile, { force: true }).catch(() => {});
}

function refusal(entry: ReadEntry): string | null {
	const p = entry.path;
	if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return `entry "${p}" is an absolute path`;
	if (p.split(/[\\/]/).includes('..')) return `entry "${p}" escapes the project directory`;
	if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'Directory') return `entry "${p}" is a ${entry.type}`;
	return null;
}

/** Unpacks the project tar.gz into `dir`; throws naming the first refused entry. */
export async function unpackProject(data: Uint8Array, dir: string): Promise<{ files: number; bytes: number }> {
	let files = 0;
	let bytes = 0;
	let problem: string | null = null;
	const tmp = path.join(path.dirname(dir), 'project.tar.gz');
	await writeFile(tmp, data);
	try {
		await extract({
			file: tmp,
			cwd: dir,
			strict: true,
			preservePaths: false,
			// Never the archive's owners or modes: files are ours, readable, not setuid.
			preserveOwner: false,
			noChmod: true,
			filter: (_p, entry) => {
				const e = entry as ReadEntry;
				if (problem) return false;
				const why = refusal(e);
				if (why) {
					problem = why;
					return false;
				}
				if (e.type !== 'Directory') files++;
				bytes += e.size ?? 0;
				if (files > ARCHIVE_LIMITS.maxEntries) problem = `it has more than ${ARCHIVE_LIMITS.maxEntries} entries`;
				else if (bytes > ARCHIVE_LIMITS.maxUnpackedBytes) problem = `it unpacks to more than ${ARCHIVE_LIMITS.maxUnpackedBytes / 1024 / 1024} MB`;
				return problem === null;
			}
		});
	} finally {
		await rm(tmp, { force: true });
	}
	if (problem) throw new Error(`the project archive was refused: ${problem}`);
	return { files, bytes };
}

/** The project's dbt_project.yml text, or null. */
export async function readProjectFile(projectDir: string): Promise<string | null> {
	return readFile(path.join(projectDir, 'dbt_project.yml'), 'utf8').catch(() => null);
}
