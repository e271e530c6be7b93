import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
const config = {
	preprocess: vitePreprocess(),
	kit: {
		adapter: adapter({ out: 'build' }),
		// Kit's origin check is off ('*'): it refuses form posts without an Origin header, which
		// the CLI and CI jobs send. The handle hook does the check instead (src/hooks.server.ts),
		// against the request's real origin (src/lib/server/origin.ts).
		csrf: { trustedOrigins: ['*'] }
	}
};

export default config;
