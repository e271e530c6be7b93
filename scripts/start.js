// `npm start`: build the app with only vite's warnings and errors shown, then serve it. The full
// build report (hundreds of chunk sizes) is `npm run build`; here it would bury the line with the
// admin password that a first start prints.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildSteps } from './build-steps.js';

const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
const started = Date.now();
process.stdout.write('Building Tributary (a minute or so)…\n');
for (const args of buildSteps()) {
	const build = spawnSync(process.execPath, [vite, 'build', ...args, '--logLevel', 'warn'], { stdio: 'inherit' });
	if (build.status !== 0) process.exit(build.status ?? 1);
}
process.stdout.write(`Built in ${Math.round((Date.now() - started) / 1000)} s.\n`);
await import('./serve.js');
