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
		csrf: { trustedOrigins: ['*'] },
		// Every rendered page's policy: only the app's own scripts and style sheets. kit adds the
		// nonce of the page's inline hydration script (a hash on prerendered pages). Style
		// attributes stay allowed (`style-src-attr`): Svelte and xyflow position and size the
		// canvas through them, and an attribute cannot run script or load anything img-src refuses.
		// The API's answers get a deny-all policy from src/lib/server/security-headers.ts.
		csp: {
			mode: 'auto',
			directives: {
				'default-src': ['self'],
				'script-src': ['self'],
				'style-src': ['self'],
				'style-src-attr': ['unsafe-inline'],
				'img-src': ['self', 'data:'],
				'font-src': ['self'],
				'connect-src': ['self'],
				'object-src': ['none'],
				'base-uri': ['self'],
				'form-action': ['self'],
				'frame-ancestors': ['none']
			}
		}
	}
};

export default config;
