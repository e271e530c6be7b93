// The producer-analysis thread's own entry, built to build/producer-thread.js (vite.worker.config.ts):
// importing analysis-thread.ts is the whole of it (its top level answers the thread's workerData),
// and the bundle holds the analysis and the SQL parser and nothing of the server.
import './analysis-thread';
