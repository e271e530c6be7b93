import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
const config = {
	preprocess: vitePreprocess(),
	kit: {
		adapter: adapter({ out: 'build' }),
		// API clients (the CLI, CI jobs) post multipart uploads without an Origin header; the
		// session cookie is SameSite=Lax, so cross-site form posts carry no credentials anyway.
		csrf: { checkOrigin: false }
	}
};

export default config;
