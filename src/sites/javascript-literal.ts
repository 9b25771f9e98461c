/**
 * Reads the object literal of a JavaScript or TypeScript module (a Docusaurus `sidebars.js`) without
 * running it: a single-pass tokenizer and a recursive-descent reader of objects, arrays and strings.
 * Anything else (function calls, variables, spreads) becomes `other`, so a sidebar built by code is
 * read as far as it is literal. Linear in the text; nesting deeper than `maxDepth` is `other`.
 */

export type LiteralValue =
  | { kind: 'string'; value: string; line: number }
  | { kind: 'array'; items: LiteralValue[] }
  | { kind: 'object'; entries: [string, LiteralValue][] }
  | { kind: 'other' };

interface Token {
  type: 'string' | 'word' | 'punctuation' | 'other';
  value: string;
  line: number;
}

const maxDepth = 64;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '\n') {
      line++;
      index++;
    } else if (char === ' ' || char === '\t' || char === '\r') {
      index++;
    } else if (char === '/' && text[index + 1] === '/') {
      const end = text.indexOf('\n', index);
      index = end < 0 ? text.length : end;
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let at = index; at < stop; at++) if (text[at] === '\n') line++;
      index = stop;
    } else if (char === '"' || char === "'" || char === '`') {
      const start = line;
      let value = '';
      let plain = true;
      index++;
      while (index < text.length && text[index] !== char) {
        if (text[index] === '\\' && index + 1 < text.length) index++;
        else if (char === '`' && text[index] === '$' && text[index + 1] === '{') plain = false;
        if (text[index] === '\n') line++;
        value += text[index];
        index++;
      }
      index++;
      tokens.push({ type: plain ? 'string' : 'other', value, line: start });
    } else if (isWordCharacter(char)) {
      let end = index;
      while (end < text.length && isWordCharacter(text[end])) end++;
      tokens.push({ type: 'word', value: text.slice(index, end), line });
      index = end;
    } else {
      const spread = text.startsWith('...', index);
      tokens.push({ type: 'punctuation', value: spread ? '...' : char, line });
      index += spread ? 3 : 1;
    }
  }
  return tokens;
}

function isWordCharacter(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9') || char === '_' || char === '$';
}

/** The value of the module's main object literal: the first `{` after `=` or `export default`. */
export function moduleObject(text: string): LiteralValue {
  const tokens = tokenize(text);
  for (let index = 0; index + 1 < tokens.length; index++) {
    const token = tokens[index];
    const assigns = token.type === 'punctuation' && token.value === '=';
    const exported = token.type === 'word' && token.value === 'default' && tokens[index - 1]?.value === 'export';
    if ((assigns || exported) && tokens[index + 1].value === '{') return new Reader(tokens, index + 1).value(0);
  }
  return { kind: 'other' };
}

class Reader {
  readonly #tokens: Token[];
  #index: number;

  constructor(tokens: Token[], index: number) {
    this.#tokens = tokens;
    this.#index = index;
  }

  value(depth: number): LiteralValue {
    const token = this.#tokens[this.#index];
    if (!token) return { kind: 'other' };
    if (depth < maxDepth && token.value === '{' && token.type === 'punctuation') return this.#object(depth);
    if (depth < maxDepth && token.value === '[' && token.type === 'punctuation') return this.#array(depth);
    if (token.type === 'string' && this.#endsValue(this.#index + 1)) {
      this.#index++;
      return { kind: 'string', value: token.value, line: token.line };
    }
    this.#skipExpression();
    return { kind: 'other' };
  }

  #object(depth: number): LiteralValue {
    const entries: [string, LiteralValue][] = [];
    this.#index++;
    while (this.#index < this.#tokens.length && this.#tokens[this.#index].value !== '}') {
      const key = this.#tokens[this.#index];
      const next = this.#tokens[this.#index + 1];
      if ((key.type === 'word' || key.type === 'string') && next?.value === ':') {
        this.#index += 2;
        entries.push([key.value, this.value(depth + 1)]);
      } else {
        this.#skipExpression();
      }
      if (this.#tokens[this.#index]?.value === ',') this.#index++;
    }
    this.#index++;
    return { kind: 'object', entries };
  }

  #array(depth: number): LiteralValue {
    const items: LiteralValue[] = [];
    this.#index++;
    while (this.#index < this.#tokens.length && this.#tokens[this.#index].value !== ']') {
      items.push(this.value(depth + 1));
      if (this.#tokens[this.#index]?.value === ',') this.#index++;
    }
    this.#index++;
    return { kind: 'array', items };
  }

  #endsValue(index: number): boolean {
    const token = this.#tokens[index];
    return !token || (token.type === 'punctuation' && (token.value === ',' || token.value === '}' || token.value === ']'));
  }

  /** Moves past an expression this reader does not model, up to the `,`, `}` or `]` that ends it. */
  #skipExpression(): void {
    let depth = 0;
    const start = this.#index;
    while (this.#index < this.#tokens.length) {
      const { type, value } = this.#tokens[this.#index];
      if (type === 'punctuation') {
        if (value === '{' || value === '[' || value === '(') depth++;
        else if (value === '}' || value === ']' || value === ')') {
          if (depth === 0) break;
          depth--;
        } else if (value === ',' && depth === 0) break;
      }
      this.#index++;
    }
    // Always move on, so a stray token cannot stop the reader.
    if (this.#index === start) this.#index++;
  }
}
