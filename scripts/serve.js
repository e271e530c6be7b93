// Starts the built app (build/) with Tributary's defaults for adapter-node.
// Artifact uploads (manifests of several MB, index files, project archives) exceed
// adapter-node's 512 KB default body limit; the deploy route enforces its own per-file limits.
process.env.BODY_SIZE_LIMIT ??= '1G';
process.env.PORT ??= '3000';
await import('../build/index.js');
