// Data tests named the way dbt-core names them, so the ids look like the real thing (a
// consumer keys on unique_id and shows `name`).
import { createHash } from 'node:crypto';
import type { RelationSpec, TestSpec } from './spec';

export interface GenericTestInput {
	packageName: string;
	testName: string;
	namespace?: string | null;
	target: RelationSpec;
	column: string | null;
	/** The test's own arguments; `ref('x')` strings for relationships' `to`. */
	args?: Record<string, unknown>;
	severity?: 'ERROR' | 'warn';
	/** The YAML file declaring the test. */
	ymlPath: string;
	/** Other nodes the test reads (relationships' `to`), listed before the target as dbt does. */
	otherParents?: string[];
	failures?: number;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

function flatArgs(args: Record<string, unknown>): string[] {
	const out: string[] = [];
	for (const key of Object.keys(args).sort()) {
		const v = args[key];
		const parts = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : [v];
		out.push(...parts.map((p) => String(p).replace(/[^0-9a-zA-Z_]+/g, '_')));
	}
	return out;
}

/** dbt's synthesized name, and the short alias (and file name) it uses past 63 characters. */
export function genericTestNames(testName: string, namespace: string | null, target: RelationSpec, args: Record<string, unknown>) {
	const identifier = namespace ? `${namespace}_${testName}` : testName;
	const subject = target.resourceType === 'source' ? `source_${identifier}_${target.sourceName}_${target.name}` : `${identifier}_${target.name}`;
	const unique = flatArgs(args).join('__');
	const fullName = unique ? `${subject}_${unique}` : subject;
	const alias = fullName.length >= 64 ? `${fullName.slice(0, 30)}${md5(fullName)}` : fullName;
	return { fullName, alias };
}

export function genericTest(input: GenericTestInput): TestSpec {
	const args = input.args ?? {};
	const namespace = input.namespace ?? null;
	const nameArgs: Record<string, unknown> = input.column ? { column_name: input.column, ...args } : { ...args };
	const { fullName, alias } = genericTestNames(input.testName, namespace, input.target, nameArgs);
	const hash = md5(`${input.target.uniqueId}|${fullName}|${JSON.stringify(args)}`).slice(0, 10);
	return {
		resourceType: 'test',
		uniqueId: `test.${input.packageName}.${fullName}.${hash}`,
		name: fullName,
		alias,
		packageName: input.packageName,
		kind: 'generic',
		testName: input.testName,
		namespace,
		arguments: args,
		columnName: input.column,
		attachedNode: input.target.resourceType === 'source' ? null : input.target.uniqueId,
		targetId: input.target.uniqueId,
		severity: input.severity ?? 'ERROR',
		filePath: input.ymlPath,
		rawCode: null,
		configCall: {},
		parents: [...(input.otherParents ?? []), input.target.uniqueId],
		failures: input.failures ?? 0
	};
}

export interface SingularTestInput {
	packageName: string;
	name: string;
	rawCode: string;
	parents: string[];
	severity?: 'ERROR' | 'warn';
	failures?: number;
}

export function singularTest(input: SingularTestInput): TestSpec {
	const severity = input.severity ?? 'ERROR';
	return {
		resourceType: 'test',
		uniqueId: `test.${input.packageName}.${input.name}`,
		name: input.name,
		alias: input.name,
		packageName: input.packageName,
		kind: 'singular',
		testName: null,
		namespace: null,
		arguments: {},
		columnName: null,
		attachedNode: null,
		targetId: null,
		severity,
		filePath: `tests/${input.name}.sql`,
		rawCode: input.rawCode,
		configCall: severity === 'warn' ? { severity: 'warn' } : {},
		parents: input.parents,
		failures: input.failures ?? 0
	};
}
