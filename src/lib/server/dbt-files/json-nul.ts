// A NUL character (U+0000) in an uploaded JSON file. JSON can only carry it as the escape
// `\u0000`, and Postgres text and jsonb refuse it, so a file holding one would fail deep in an
// insert; it is found in the raw bytes first (a native search: no parse, no walk) and refused
// with a 400 naming the file.
import { badRequest } from '../http';
import type { UploadedFile } from './uploaded-file';

const ESCAPE = Buffer.from('\\u0000');
const BACKSLASH = 0x5c;

/** The byte offset of the first `\u0000` escape in JSON text (not an escaped backslash before `u0000`); -1 when none. */
export function jsonNulOffset(bytes: Uint8Array): number {
	const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	for (let at = buf.indexOf(ESCAPE); at >= 0; at = buf.indexOf(ESCAPE, at + 1)) {
		// The backslash at `at` starts an escape when an even number of backslashes stands before it.
		let before = 0;
		while (at - before - 1 >= 0 && buf[at - before - 1] === BACKSLASH) before++;
		if (before % 2 === 0) return at;
	}
	return -1;
}

/** Refuses an uploaded JSON (or JSON lines) file holding a NUL character: a 400 naming the field and where. */
export function refuseJsonNul<F extends UploadedFile | undefined>(field: string, file: F): F {
	if (!file) return file;
	const at = jsonNulOffset(file.bytes);
	if (at >= 0) throw badRequest(`${field}: ${file.name} holds a NUL character (\\u0000) at byte ${at}, which cannot be stored`);
	return file;
}
