// One uploaded artifact: its form field's file name (messages name it) and its bytes, and its
// text. Below graph-content.ts so the readers it calls (catalog.ts), and the runner reading the
// artifacts a recorded run brings, name it without importing the ingest.
import { IngestError } from './errors';

export interface UploadedFile {
	name: string;
	bytes: Uint8Array;
}

/** UTF-8 text of an uploaded dbt JSON file, or an IngestError naming it. */
export function decodeUtf8Bytes(bytes: Uint8Array, fileName: string): string {
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
	} catch {
		throw new IngestError(fileName, 'is not UTF-8 text (expected dbt JSON)');
	}
}

export function decodeUtf8(f: UploadedFile): string {
	return decodeUtf8Bytes(f.bytes, f.name);
}
