/**
 * Paths from logs, drains and the proxy are what clients sent, not what a careful caller wrote: a
 * scanner's `/%zz`, a truncated `%E2%8`, an encoded newline. Such a request is still a view of
 * something; rather than refuse it, its path is rewritten so that normalizing it (paths.ts decodes
 * percent-encoding) gives back a printable text: a `%` that starts no valid escape becomes `%25`, and a
 * control character (raw or encoded) becomes the literal text `%0A` and so on.
 */

const hex = (code: number) => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
const isControl = (code: number) => code < 0x20 || code === 0x7f;

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** `path` unchanged when it normalizes cleanly, else its escaped form (see above). */
export function escapeUnsafePath(path: string): string {
  let unsafe = false;
  let escapes = false;
  for (let index = 0; index < path.length && !unsafe; index++) {
    const code = path.charCodeAt(index);
    if (isControl(code)) unsafe = true;
    else if (code === 0x25 /* % */) {
      escapes = true;
      if (!hex(path.charCodeAt(index + 1)) || !hex(path.charCodeAt(index + 2))) unsafe = true;
      else if (isControl(parseInt(path.slice(index + 1, index + 3), 16))) unsafe = true;
    }
  }
  if (!unsafe && (!escapes || decodes(path))) return path;
  const escaped = escapeWith(path, false);
  // Valid escapes that do not form UTF-8 (`%C3%28`, a cut `%E2%8`): keep every escape as written.
  return decodes(escaped) ? escaped : escapeWith(path, true);
}

/** Control characters as the text `%XX`; a `%` that starts no valid escape (or, with `everyPercent`, any `%`) as `%25`. */
function escapeWith(path: string, everyPercent: boolean): string {
  let escaped = '';
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    if (isControl(code)) escaped += `%25${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (code === 0x25 && hex(path.charCodeAt(index + 1)) && hex(path.charCodeAt(index + 2))) {
      const value = parseInt(path.slice(index + 1, index + 3), 16);
      escaped += everyPercent || isControl(value) ? `%25${path.slice(index + 1, index + 3).toUpperCase()}` : path.slice(index, index + 3);
      index += 2;
    } else if (code === 0x25) escaped += '%25';
    else escaped += path[index];
  }
  return escaped;
}
