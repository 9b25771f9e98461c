/** A word of the query counts as found when a word of the section starts with its first characters. */
const minimumStemLength = 4;
const suffixAllowance = 3;

/** The beginning of `word` that its inflections share, roughly: all but its last three characters, at least four. */
export function stem(word: string): string {
  const cut = word.slice(0, Math.max(minimumStemLength, word.length - suffixAllowance));
  // A stem cut between the two halves of a pair would match neither.
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Regular expression source of `text` as a literal. */
export const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
