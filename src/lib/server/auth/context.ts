/** The authenticated caller of one request, before any workspace is considered. */
export interface AuthContext {
	accountId: string;
	username: string;
	instanceAdmin: boolean;
	via: 'session' | 'token';
	sessionId?: string;
	/** Present when the caller presented an API token: it belongs to one workspace and may narrow. */
	token?: { id: string; workspace: string; scopes: string[] };
}
