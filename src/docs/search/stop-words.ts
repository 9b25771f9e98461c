/**
 * Words too common to tell sections apart: the Snowball English list, the one PostgreSQL's `english`
 * configuration drops. A query loses them before either engine sees it (see terms.ts), so both
 * engines match and score the same words; the indexes keep them, for phrases and for queries made of
 * nothing else.
 */
export const stopWords: ReadonlySet<string> = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its ' +
    'itself they them their theirs themselves what which who whom this that these those am is are was were be been being ' +
    'have has had having do does did doing a an the and but if or because as until while of at by for with about against ' +
    'between into through during before after above below to from up down in out on off over under again further then once ' +
    'here there when where why how all any both each few more most other some such no nor not only own same so than too very ' +
    's t can will just don should now'
  ).split(' '),
);
