/** A command that cannot run, with a sentence that says why and what to do instead. */
export class CommandError extends Error {}

/** A command given arguments it does not take: the answer adds the list of commands and their syntax. */
export class UsageError extends CommandError {}
