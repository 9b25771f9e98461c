import { describe, expect, it } from 'vitest';
import { batchRecords, type BatchRecord } from '../../src/analytics/drains/body.ts';
import { maxJsonDepth, nestsTooDeep } from '../../src/http/json.ts';

/** The records as reading the whole decoded text gives them: what reading line by line must equal. */
function wholeText(text: string): BatchRecord[] | string {
  const start = text.search(/\S/);
  if (start !== -1 && text[start] === '[') {
    if (nestsTooDeep(text)) return 'too deep';
    try {
      return (JSON.parse(text) as unknown[]).map((value) => ({ value }));
    } catch {
      return 'not json';
    }
  }
  const records: BatchRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (nestsTooDeep(line)) {
      records.push({ error: `record nests more than ${maxJsonDepth} levels deep` });
      continue;
    }
    try {
      const value = JSON.parse(line) as unknown;
      if (Array.isArray(value)) for (const entry of value) records.push({ value: entry });
      else records.push({ value });
    } catch {
      records.push({ error: 'record is not valid JSON' });
    }
  }
  return records;
}

function byLines(bytes: Buffer): BatchRecord[] | string {
  try {
    return batchRecords(bytes);
  } catch (error) {
    return (error as Error).message.includes('levels deep') ? 'too deep' : 'not json';
  }
}

const record = (index: number) => JSON.stringify({ path: `/docs/${index}`, ua: 'Mozilla/5.0 Ü日本', status: 200 });

describe('drain batch records read line by line', () => {
  it('are the records of the whole decoded text, whatever the lines hold', () => {
    const lines = Array.from({ length: 3000 }, (_, index) => record(index));
    const bodies: Buffer[] = [
      Buffer.from(lines.join('\n')),
      Buffer.from(`${lines.join('\r\n')}\r\n\r\n`),
      Buffer.from(`\uFEFF${lines.slice(0, 5).join('\n')}\n\n   \n${lines.slice(5, 10).join('\n')}`),
      Buffer.from(`[${lines.slice(0, 3).join(',')}]\n${lines[4]}\nnot json\n${'['.repeat(40)}\n`),
      Buffer.from(`${' '.repeat(5000)}[${lines.slice(0, 50).join(',')}]`),
      Buffer.from(`${' '.repeat(5000)}${lines.slice(0, 50).join('\n')}`),
      Buffer.from(`\n\t [${lines.slice(0, 50).join(',')}`),
      Buffer.from(`[${'['.repeat(40)}]`),
      // Characters cut by the prefix that finds the body's shape, after spacing: a letter, and a space of two bytes.
      Buffer.from(`${' '.repeat(4095)}Ü${lines[0]}`),
      Buffer.from(`${' '.repeat(4095)}\u00A0[${lines.slice(0, 50).join(',')}]`),
      // Invalid UTF-8 right before a newline and at the end.
      Buffer.concat([Buffer.from(lines[0]), Buffer.from([0xe2, 0x82, 0x0a]), Buffer.from(lines[1]), Buffer.from([0x0a, 0xf0, 0x9f])]),
      Buffer.alloc(0),
      Buffer.from('\n\n'),
    ];
    for (const body of bodies) expect(byLines(body)).toEqual(wholeText(body.toString('utf8')));
  });
});
