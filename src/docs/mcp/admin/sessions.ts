import type { AppContext } from '../../../http/context.ts';
import { endSessionJob } from '../../../jobs/sessions.ts';
import type { ApiKeyRow } from '../../../storage/tables/accounts.ts';
import { endSessionLease, renewSessionLease } from '../../../workspace/session-lease.ts';
import type { TranscriptBuffer } from './transcript-buffer.ts';

export type WorkbenchSession = Awaited<ReturnType<AppContext['workbench']['open']>>;

/** A session opened by `checkout`: one job's branch in a workspace of this process. */
export interface OpenSession {
  id: string;
  orgId: string;
  projectId: string;
  jobId: string;
  clientName: string;
  bench: WorkbenchSession;
  lastUsed: number;
  /** The save under way, if any: saves of one session take turns (see `serialize`). */
  turn: Promise<unknown>;
  /** Its tool calls' transcript entries not written yet; flushed before a save and when the session ends. */
  transcript: TranscriptBuffer;
}

declare module '../../../http/context.ts' {
  interface AppContext {
    /** The admin MCP sessions this process holds (see docs/mcp/admin/sessions.ts). */
    adminSessions: AdminSessions;
  }
}

/**
 * The admin MCP sessions of this process. A session's workspace is a checkout on this machine, so a
 * session lives in the process that opened it (a fleet routes `/mcp` to one process per client, or
 * the client calls `checkout` again with its branch: what was saved is on the remote). Sessions end
 * when idle for QUIRE_MCP_SESSION_IDLE_MINUTES, when their job is cancelled, and when the process stops.
 */
export class AdminSessions {
  private readonly sessions = new Map<string, OpenSession>();
  /** When each session's checkout lease was last renewed (see workspace/sweep.ts). */
  private readonly leasedAt = new Map<string, number>();
  private readonly context: AppContext;

  constructor(context: AppContext) {
    this.context = context;
    context.events.on('job-cancelled', (jobId) => {
      const session = this.byJob(jobId);
      if (session) void this.close(session.id);
    });
  }

  add(session: OpenSession): void {
    this.sessions.set(session.id, session);
    this.renewLease(session);
  }

  /**
   * Renews the lease of the session's checkout, at most once a minute: a worker process that sweeps checkouts
   * leaves a leased one alone, though the session's job may have completed.
   */
  private renewLease(session: OpenSession, now = Date.now()): void {
    if (now - (this.leasedAt.get(session.id) ?? 0) < 60_000) return;
    this.leasedAt.set(session.id, now);
    renewSessionLease(this.context.config.dataDir, session.jobId).catch((error: unknown) =>
      this.context.logger.warn({ err: error, jobId: session.jobId }, 'could not renew an admin MCP session’s checkout lease'),
    );
  }

  /** The session when `key` may see it; undefined otherwise, as for a session that does not exist. */
  find(id: string, key: ApiKeyRow, canSee: (projectId: string) => boolean): OpenSession | undefined {
    const session = this.sessions.get(id);
    if (!session || session.orgId !== key.org_id || !canSee(session.projectId)) return undefined;
    session.lastUsed = Date.now();
    this.renewLease(session, session.lastUsed);
    return session;
  }

  byJob(jobId: string): OpenSession | undefined {
    for (const session of this.sessions.values()) if (session.jobId === jobId) return session;
    return undefined;
  }

  /** Whether a session of this process works on the job: the workspace sweeper leaves its checkout alone. */
  holds(jobId: string): boolean {
    return this.byJob(jobId) !== undefined;
  }

  /** Runs `task` after the session's earlier saves, so two saves of one session never interleave. */
  serialize<T>(session: OpenSession, task: () => Promise<T>): Promise<T> {
    const result = session.turn.then(task, task);
    session.turn = result.catch(() => undefined);
    return result;
  }

  /** Removes the session's workspace; its job keeps what was saved (a cancelled job is already failed). */
  async close(id: string): Promise<OpenSession | undefined> {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    this.sessions.delete(id);
    await session.turn;
    await session.transcript
      .flush()
      .catch((error: unknown) => this.context.logger.error({ err: error, jobId: session.jobId }, 'could not write an admin MCP session’s transcript'));
    await session.bench.dispose();
    this.leasedAt.delete(id);
    await endSessionLease(this.context.config.dataDir, session.jobId).catch(() => undefined);
    return session;
  }

  /** Ends a session for `reason`: its job records how it ended (see `endSessionJob`), then the workspace goes. */
  async end(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    await session.turn;
    const unsaved = await session.bench.hasUnsavedChanges().catch(() => true);
    await this.close(id);
    await endSessionJob(this.context, session.jobId, { reason, unsaved });
  }

  /** Ends the sessions idle for longer than QUIRE_MCP_SESSION_IDLE_MINUTES; returns how many. */
  async endIdle(now = Date.now()): Promise<number> {
    const minutes = this.context.config.mcpSessionIdleMinutes;
    const idle = [...this.sessions.values()].filter((session) => now - session.lastUsed > minutes * 60_000);
    for (const session of idle) await this.end(session.id, `The admin MCP session was idle for ${minutes} minutes (QUIRE_MCP_SESSION_IDLE_MINUTES) and ended.`);
    return idle.length;
  }

  /** Ends every session (the process stops). */
  async endAll(): Promise<void> {
    for (const id of [...this.sessions.keys()]) await this.end(id, 'The server that held the admin MCP session stopped.');
  }
}
