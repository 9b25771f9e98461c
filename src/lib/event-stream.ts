/** One message of a `text/event-stream`. */
export interface StreamEvent {
  id: string | null;
  event: string;
  data: string;
}

/**
 * Reads server-sent events from a response body, as the HTML standard's parser does: `field: value`
 * lines, a blank line ends a message, comment lines (`:`) are skipped. Lines are split by hand, not by a
 * regular expression, so a hostile stream costs linear time.
 */
export async function* readEventStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let message: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n', start)) {
      const end = newline > start && buffer[newline - 1] === '\r' ? newline - 1 : newline;
      const line = buffer.slice(start, end);
      start = newline + 1;
      if (line === '') {
        if (message.data.length > 0) yield { id: message.id, event: message.event, data: message.data.join('\n') };
        message = { id: null, event: 'message', data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
      if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data') message.data.push(value);
    }
    buffer = buffer.slice(start);
  }
}
