// The vite builds `npm run build` runs, read from package.json's own "build" script, so that
// `npm start` (which runs them quietly) can never build less than it: it once skipped the
// manifest-parse thread's entry, and every big deploy's thread then loaded the whole server chunk.
import { readFileSync } from 'node:fs';

/** The argument lists of each `vite build …` in the "build" script (after `vite build`). */
export function buildSteps(packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))) {
	const script = packageJson.scripts?.build ?? '';
	return script.split('&&').map((command) => {
		const words = command.trim().split(/\s+/);
		if (words[0] !== 'vite' || words[1] !== 'build') throw new Error(`package.json "build": expected only \`vite build …\` commands, found \`${command.trim()}\``);
		return words.slice(2);
	});
}
