// Two lines the framework prints on every build that are wrong for this project: SvelteKit's
// "Run npm run preview …" (this project has no preview script: `npm start` serves the build) and
// rollup's "Generated an empty chunk: chunks/env.js" from adapter-node's bundling of kit's env
// module, which this app does not read. Neither can be turned off by an option, so the build
// process drops exactly these lines and nothing else.
const DROPPED = [/to preview your production build locally\.\s*$/, /^Generated an empty chunk: "chunks\/env\.js"\.?$/];

/** True when a console line is one of the dropped notices. */
export function isFrameworkNoise(args) {
	if (args.length !== 1 || typeof args[0] !== 'string') return false;
	// Strip terminal colours before matching.
	const text = args[0].replace(/\x1b\[[0-9;]*m/g, '').trim();
	return DROPPED.some((re) => re.test(text));
}

let installed = false;

/** Filters console.log and console.warn of this process (idempotent). */
export function quietFrameworkNotices() {
	if (installed) return;
	installed = true;
	for (const level of ['log', 'warn']) {
		const original = console[level].bind(console);
		console[level] = (...args) => {
			if (!isFrameworkNoise(args)) original(...args);
		};
	}
}
