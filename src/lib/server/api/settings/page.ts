// The settings page's reads: each section under the gate of the API endpoint that reads it
// (GET tokens, users, groups, folders, warehouses, openlineage/namespaces), so a token sees there
// exactly what it could read through the API; a section it may not read is null.
import { adminAllows, mayListTokens, type AdminResource, type Principal } from '../../access';
import { passwordIsGenerated } from './account';
import { listFoldersAs } from './folders';
import { listGroupsAs } from './groups';
import { listMembersAs } from './members';
import { listNamespacesAs } from './namespaces';
import { listOwnTokens, listWorkspaceTokens } from './tokens';
import { listWarehousesAs } from './warehouses';
import { settingText, NAMED_SETTINGS } from './warehouse-form';

export async function settingsPage(p: Principal) {
	const account = { username: p.username, mayChangePassword: p.via === 'session', generatedPassword: p.via === 'session' && (await passwordIsGenerated(p.accountId)) };
	const tokens = mayListTokens(p) ? await listOwnTokens(p) : null;
	if (!p.isAdmin) return { account, tokens, admin: null };
	const when = <T>(resource: AdminResource, read: () => Promise<T>): Promise<T | null> =>
		adminAllows(p, resource, 'read') ? read() : Promise.resolve(null);
	const [members, groups, folders, warehouses, namespaces, allTokens] = await Promise.all([
		when('users', () => listMembersAs(p)),
		when('groups', () => listGroupsAs(p)),
		when('folders', () => listFoldersAs(p)),
		when('warehouses', () => listWarehousesAs(p)),
		when('openlineage', () => listNamespacesAs(p)),
		// Under GET tokens?all=true's gate: an admin, and tokens:read for a token.
		mayListTokens(p) ? listWorkspaceTokens(p) : Promise.resolve(null)
	]);
	// Each warehouse as its form shows it: the named settings, the rows of the rest, the names of its secrets.
	const warehouseForms = warehouses?.map((w) => {
		const s = w.settings;
		const rows = Object.entries(s)
			.filter(([k]) => !(NAMED_SETTINGS as readonly string[]).includes(k))
			.map(([key, v]) => ({ key, value: settingText(v) }));
		return {
			name: w.name,
			default_database: w.default_database,
			type: typeof s.type === 'string' ? s.type : '',
			network: s.network === true ? 'on' : s.network === false ? 'off' : 'default',
			folders: Array.isArray(s.folders) ? s.folders.join(' ') : '',
			openlineage_namespace: typeof s.openlineage_namespace === 'string' ? s.openlineage_namespace : '',
			rows,
			secrets: Object.keys((s.secrets as Record<string, string> | undefined) ?? {})
		};
	}) ?? null;
	return { account, tokens, admin: { members, groups, folders, warehouses, warehouseForms, namespaces, tokens: allTokens } };
}
