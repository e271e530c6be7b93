// One uploaded artifact: its form field's file name (messages name it) and its bytes. Apart from
// graph-content.ts so the readers it calls (catalog.ts) can name it without importing it back.
export interface UploadedFile {
	name: string;
	bytes: Uint8Array;
}
