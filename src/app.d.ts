import type { AuthContext } from '$lib/server/auth/context';

declare global {
	namespace App {
		interface Locals {
			/** Who is calling: a session, an API token, or nobody (null). Set by hooks.server.ts. */
			auth: AuthContext | null;
		}
	}
}

export {};
