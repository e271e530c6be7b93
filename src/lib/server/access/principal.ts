// The caller as a member of one workspace: who they are, which folders they read and write,
// and what their token narrows them to. Built by identity.ts; every gate reads it.

/** A member of a workspace as the gates see it. */
export interface Principal {
	workspace: string;
	username: string;
	accountId: string;
	/** Workspace admin. */
	isAdmin: boolean;
	instanceAdmin: boolean;
	groups: string[];
	/** Folders the owner may read (writers included: writing implies reading). */
	readFolders: Set<string>;
	writeFolders: Set<string>;
	/** The token's scopes; null = not narrowed (a session, or a token minted without scopes). */
	scopes: string[] | null;
	via: 'session' | 'token';
}
