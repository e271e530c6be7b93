// A job named as people say it: what it did, to what, when ("build · f/demo/shop · 7 Dec,
// 17:40"), instead of its id. Pure: the pages pass the job's fields and a time formatter.

export interface LabelledJob {
	kind: string;
	/** The dbt command (`build`, `run`, a recorded run's `which`), when it ran one. */
	command: string | null;
	scriptPath: string | null;
	createdAt: string;
}

const KIND_WORDS: Record<string, string> = {
	deploy: 'deploy',
	preview: 'preview',
	lineage: 'lineage push',
	openlineage: 'OpenLineage run',
	recorded: 'recorded run',
	run: 'run'
};

/** What the job did: the dbt command for a run (`recorded build` for one run elsewhere), else its kind. */
export function jobVerb(j: Pick<LabelledJob, 'kind' | 'command'>): string {
	const command = j.command && /^[a-z_-]{1,32}$/.test(j.command) ? j.command : null;
	if (j.kind === 'run' && command) return command;
	if (j.kind === 'recorded' && command) return `recorded ${command}`;
	return KIND_WORDS[j.kind] ?? j.kind;
}

export const shortTime = (iso: string) =>
	new Date(iso).toLocaleString('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

/** "build · f/demo/shop · 7 Dec, 17:40". */
export function runLabel(j: LabelledJob, time: (iso: string) => string = shortTime): string {
	return [jobVerb(j), j.scriptPath, time(j.createdAt)].filter(Boolean).join(' · ');
}
