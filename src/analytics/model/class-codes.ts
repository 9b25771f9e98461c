/**
 * The classes counted views are stored under: in pending batches, day sets (their `class` column)
 * and the range index. Excluded views are stored only as raw events and have no code.
 */
export const ClassCode = { human: 0, ai: 1 } as const;
export type ClassCode = (typeof ClassCode)[keyof typeof ClassCode];

/** Both stored classes, in code order. */
export const classCodes: readonly ClassCode[] = [ClassCode.human, ClassCode.ai];

/**
 * What the range index counts per cell: each stored class, and `either` (a visitor seen as human and
 * as AI counts once), which gives the deduplicated `total`.
 */
export const CountClass = { ...ClassCode, either: 2 } as const;
export type CountClass = (typeof CountClass)[keyof typeof CountClass];
export const countClasses: readonly CountClass[] = [CountClass.human, CountClass.ai, CountClass.either];
