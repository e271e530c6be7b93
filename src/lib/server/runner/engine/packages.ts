// A project's dbt packages: whether it declares any, the package-lock.yml `dbt deps` wrote (its
// digest is part of a version's lock), and the installed dbt_packages tree cached per (workspace,
// package-lock digest) so that a run of a pinned version skips `dbt deps`.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export const PACKAGE_LOCK = 'package-lock.yml';

/** Whether packages.yml or dependencies.yml lists packages (a dependencies.yml of `projects:` alone installs none). */
export async function declaresPackages(projectDir: string): Promise<boolean> {
	for (const f of ['packages.yml', 'dependencies.yml']) {
		const text = await readFile(path.join(projectDir, f), 'utf8').catch(() => null);
		if (text === null) continue;
		try {
			const doc = parseYaml(text) as { packages?: unknown } | null;
			if (Array.isArray(doc?.packages) && doc.packages.length > 0) return true;
		} catch {
			// dbt reports a broken file itself, with its line: let deps run and say so.
			return true;
		}
	}
	return false;
}

export interface PackageLock {
	text: string;
	/** SHA-256 of the file's bytes. */
	digest: string;
	/** Some package is `local:` (its contents live in the project, so the tree is not cached by the lock alone). */
	local: boolean;
}

export async function readPackageLock(projectDir: string): Promise<PackageLock | null> {
	const text = await readFile(path.join(projectDir, PACKAGE_LOCK), 'utf8').catch(() => null);
	if (text === null) return null;
	let local = false;
	try {
		const doc = parseYaml(text) as { packages?: unknown } | null;
		local = Array.isArray(doc?.packages) && doc.packages.some((p) => p && typeof p === 'object' && 'local' in (p as object));
	} catch {
		local = true;
	}
	return { text, digest: createHash('sha256').update(text).digest('hex'), local };
}

const cacheDir = (root: string, workspace: string, digest: string) => path.join(root, encodeURIComponent(workspace), digest);

/** Copies a cached dbt_packages tree (and its lock) into the project; false on a miss. */
export async function restorePackages(root: string, workspace: string, digest: string, projectDir: string): Promise<boolean> {
	const dir = cacheDir(root, workspace, digest);
	if (!existsSync(path.join(dir, 'dbt_packages'))) return false;
	await rm(path.join(projectDir, 'dbt_packages'), { recursive: true, force: true });
	await cp(path.join(dir, 'dbt_packages'), path.join(projectDir, 'dbt_packages'), { recursive: true });
	await cp(path.join(dir, PACKAGE_LOCK), path.join(projectDir, PACKAGE_LOCK));
	return true;
}

/** Keeps the project's installed packages under their lock's digest (built aside, renamed into place). */
export async function savePackages(root: string, workspace: string, lock: PackageLock, projectDir: string): Promise<void> {
	if (lock.local) return;
	const dir = cacheDir(root, workspace, lock.digest);
	if (existsSync(dir)) return;
	const installed = path.join(projectDir, 'dbt_packages');
	if (!existsSync(installed)) return;
	const aside = `${dir}.${randomBytes(4).toString('hex')}`;
	await mkdir(aside, { recursive: true });
	try {
		// Symlinks dbt made point into this job's directory, which is about to go.
		await cp(installed, path.join(aside, 'dbt_packages'), { recursive: true, dereference: true });
		await cp(path.join(projectDir, PACKAGE_LOCK), path.join(aside, PACKAGE_LOCK));
		await rename(aside, dir);
	} catch (e) {
		await rm(aside, { recursive: true, force: true });
		if (!existsSync(dir)) throw e;
	}
}
