// What the pipeline and the extraction process share: the job, its bounds and its result. Nothing
// here parses anything, so the server loads none of the parsers (they run in extraction-child.ts).

export interface Extracted {
  text: string;
  type: string;
  title?: string;
}

/** A document that cannot be processed; the message is kept on the document. */
export class ExtractionError extends Error {}

const URL_PATTERN = /^https?:\/\/[^\s]+$/i;

export function isUrl(content: string): boolean {
  return URL_PATTERN.test(content.trim());
}

export function looksLikeHtml(text: string): boolean {
  return (
    /^\s*(<!doctype html|<html|<head|<body)/i.test(text) ||
    /<(p|div|article|h[1-6]|span|br)\b[^>]*>/i.test(text.slice(0, 5000))
  );
}

/** JSON sent as text opens with a bracket; whether it parses is for the extraction process to find out. */
export function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

/** Text or markdown as it is, titled by its first `# ` heading: no parser reads it. */
export function plainText(content: string): Extracted {
  const heading = /^#\s+(.+)$/m.exec(content);
  return { text: content, type: 'text', title: heading?.[1]?.trim() };
}

/** Bounds the extraction process applies to one document (memory and time are enforced by the server). */
export interface ExtractionLimits {
  /** Sum of the declared sizes of an archive's entries, nested archives included; also the bytes a PDF's streams may inflate to. */
  maxUncompressedBytes: number;
  /** Largest size/compressed-size ratio of one zip entry or PDF stream (past a small grace size). */
  maxRatio: number;
  /** Entries of an archive, nested archives included. */
  maxZipEntries: number;
  /** Characters of extracted text. */
  maxTextChars: number;
}

/** One piece of untrusted content to read: a text body, an uploaded file, or a fetched page's bytes. */
export type ExtractionJob =
  | { source: 'text'; content: string }
  | { source: 'file'; data: Uint8Array; name: string | null; mime: string | null; fileType: string | null }
  | { source: 'page'; data: Uint8Array; name: string | null; mime: string | null };

/** Messages between the server and an extraction process. */
export interface ExtractionRequest {
  id: number;
  job: ExtractionJob;
  limits: ExtractionLimits;
}

/** What an extraction process writes to stderr when its own watch ends it for its memory. */
export const MEMORY_LIMIT_MARKER = 'resident memory over KEEL_EXTRACT_MAX_MEMORY_MB';

export type ExtractionReply = { id: number; extracted: Extracted } | { id: number; error: string };

/** The bound on output, for every document whatever reads it. */
export function checkTextLength(text: string, limits: Pick<ExtractionLimits, 'maxTextChars'>): void {
  if (text.length > limits.maxTextChars)
    throw new ExtractionError(
      `The extracted text is longer than ${limits.maxTextChars} characters (KEEL_EXTRACT_MAX_TEXT_CHARS)`,
    );
}

/** `200 MB` for whole mebibytes, else bytes: limits read back as the operator wrote them. */
export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
