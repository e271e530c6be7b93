import type { Grant } from '$lib/server/access';
import type { AuthContext } from '$lib/server/auth/context';

declare global {
	namespace App {
		interface Locals {
			/** Who is calling: a session, an API token, or nobody (null). Set by hooks.server.ts. */
			auth: AuthContext | null;
			/** The caller's grant in a workspace (what it may read, write and run), built once per request on first ask. Set by hooks.server.ts. */
			grant?: (ws: string) => Promise<Grant>;
		}
	}
}

export {};
