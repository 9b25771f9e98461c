/**
 * What an admin MCP session's job stores as its model: not a model Quire's agent runs, but the MCP client that
 * works on the job. Apart from sessions.ts so that the follow-up (service.ts, which sessions.ts imports) can tell.
 */
const prefix = 'mcp:';

/** The model column of a session's job: the client that works on it, as `mcp:<client name>` (the API shows the name). */
export function sessionModel(clientName: string): string {
  return `${prefix}${clientName.replace(/[^A-Za-z0-9._ -]/g, '').slice(0, 100) || 'client'}`;
}

/** Whether `model` names a session's MCP client rather than a `provider:model` (no provider is called `mcp`). */
export function isSessionModel(model: string): boolean {
  return model.startsWith(prefix);
}
