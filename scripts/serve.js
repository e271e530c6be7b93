// Starts the built app (build/) with Tributary's defaults for adapter-node.
// Artifact uploads (manifests of several MB, index files, project archives) exceed
// adapter-node's 512 KB default body limit; the deploy route enforces its own per-file limits.
process.env.BODY_SIZE_LIMIT ??= '1G';
process.env.PORT ??= '3000';
// A stop signal: the app lets requests in flight run for TRIBUTARY_SHUTDOWN_GRACE_MS and then exits
// (src/lib/server/shutdown.ts); adapter-node's own cut of open connections (SHUTDOWN_TIMEOUT, in
// seconds, default 30) must not come before that.
const graceS = Math.ceil(Number(process.env.TRIBUTARY_SHUTDOWN_GRACE_MS || 10_000) / 1000);
process.env.SHUTDOWN_TIMEOUT ??= String(Number.isFinite(graceS) ? graceS + 1 : 30);
await import('../build/index.js');
