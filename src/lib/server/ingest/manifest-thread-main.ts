// The manifest-parse thread's own entry, built to build/manifest-thread.js (vite.worker.config.ts):
// importing manifest-thread.ts is the whole of it (its top level answers the thread's workerData),
// and the bundle holds nothing else, so the thread starts without loading the app's server code.
import './manifest-thread';
