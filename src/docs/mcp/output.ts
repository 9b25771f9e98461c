/**
 * A command's output as pieces, each remembering the page whose content it holds, so that when the
 * output is cut only the pages that still show are reported as read.
 */
export interface OutputPiece {
  text: string;
  /** The page whose content this is (cat, head); absent for listings and matches. */
  page?: string;
  /** More output would have followed this piece and was not made: the output was already past the limit. */
  more?: boolean;
}

export interface LimitedOutput {
  text: string;
  /** Pages with some of their content in `text`, each once. */
  pagesRead: string[];
}

/** The most a command returns, in UTF-8 bytes, the note included. */
export const maxOutputBytes = 100_000;
/** Room kept for the note that says the output was cut. */
const noteBytes = 400;

export function limitOutput(pieces: OutputPiece[], limit = maxOutputBytes): LimitedOutput {
  const total = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece.text), 0);
  const budget = total <= limit ? limit : limit - noteBytes;
  let text = '';
  let used = 0;
  const pagesRead = new Set<string>();
  for (const piece of pieces) {
    const size = Buffer.byteLength(piece.text);
    const shown = used + size <= budget ? piece.text : cutAtLine(piece.text, budget - used);
    if (shown.length > 0 && piece.page !== undefined) pagesRead.add(piece.page);
    text += shown;
    used += Buffer.byteLength(shown);
    if (shown.length < piece.text.length) break;
  }
  if (total > limit) {
    const more = pieces.some((piece) => piece.more === true);
    text +=
      `\n[Output cut at ${used.toLocaleString('en')} of ${more ? 'more than ' : ''}${total.toLocaleString('en')} bytes (the limit is ${limit.toLocaleString('en')}). ` +
      'Narrow it: read part of a page with head -n N path, give a folder path to ls, tree or rg, use tree -L 1, or rg -l to list matching files only.]';
  }
  return { text, pagesRead: [...pagesRead] };
}

/** The longest start of `text` within `bytes` UTF-8 bytes, ending at a line end when there is one. */
function cutAtLine(text: string, bytes: number): string {
  if (bytes <= 0) return '';
  const encoded = Buffer.from(text);
  const lineEnd = encoded.subarray(0, bytes).lastIndexOf(0x0a);
  if (lineEnd >= 0) return encoded.subarray(0, lineEnd + 1).toString();
  // No line end within reach: cut mid-line, but never inside a character (step back over continuation bytes).
  let end = bytes;
  while (end > 0 && (encoded[end] & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString();
}
