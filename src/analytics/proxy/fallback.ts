/**
 * The upstream first, the surface when the upstream has not the file: a wrapper of forward.ts's
 * handler. An answer that wins (surface.ts, upstreamWins) streams through untouched. Any other is
 * held: the upstream is paused at once, so a large body is never read ahead (only what was already
 * on its way is kept), while the surface is asked. When the surface has the file, the upstream
 * request is dropped and the surface answers; when not, the held answer goes on to forward.ts's
 * handler as if it had just arrived, and the rest streams with backpressure.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { SurfaceFile } from './surface.ts';

export interface FallbackOptions {
  wins(status: number, headers: IncomingHttpHeaders): boolean;
  /** The surface's file, or null when it has none. */
  answer(): Promise<SurfaceFile | null>;
  /** Answers the client with the surface's file (and records it). */
  serve(file: SurfaceFile): void;
  /** The surface failed: the upstream's answer goes through. */
  failed(error: unknown): void;
}

interface Held {
  status: number;
  headers: IncomingHttpHeaders;
  message: string | undefined;
  chunks: Buffer[];
  trailers?: IncomingHttpHeaders;
  ended: boolean;
  error?: Error;
}

/** The controller, telling `paused` when the handler pauses it. */
function watchPause(controller: Dispatcher.DispatchController, paused: () => void): Dispatcher.DispatchController {
  return {
    get aborted() {
      return controller.aborted;
    },
    get paused() {
      return controller.paused;
    },
    get reason() {
      return controller.reason;
    },
    abort: (reason) => controller.abort(reason),
    pause() {
      paused();
      controller.pause();
    },
    resume: () => controller.resume(),
  };
}

export function withFallback(inner: Dispatcher.DispatchHandler, options: FallbackOptions): Dispatcher.DispatchHandler {
  let state: 'passing' | 'holding' | 'replaced' = 'passing';
  let held: Held | undefined;

  function decide(controller: Dispatcher.DispatchController, file: SurfaceFile | null): void {
    const answer = held!;
    if (file) {
      state = 'replaced';
      if (!answer.ended && !answer.error) controller.abort(new Error('answered by the site surface'));
      options.serve(file);
      return;
    }
    state = 'passing';
    // The upstream failed after its status line: forward.ts's handler answers as for any failed upstream.
    if (answer.error) return inner.onResponseError?.(controller, answer.error);
    // Resuming delivers what the socket holds at once, so the held part goes first; when the handler
    // paused for backpressure meanwhile, it resumes the upstream itself once the client drained.
    let handlerPaused = false;
    const watched = watchPause(controller, () => (handlerPaused = true));
    inner.onResponseStart?.(watched, answer.status, answer.headers, answer.message);
    for (const chunk of answer.chunks) inner.onResponseData?.(watched, chunk);
    if (answer.ended) inner.onResponseEnd?.(watched, answer.trailers ?? {});
    else if (!handlerPaused) controller.resume();
  }

  return {
    onRequestStart: (controller, context) => inner.onRequestStart?.(controller, context),
    onResponseStart(controller, status, headers, message) {
      if (status < 200 || options.wins(status, headers)) return inner.onResponseStart?.(controller, status, headers, message);
      state = 'holding';
      held = { status, headers, message, chunks: [], ended: false };
      controller.pause();
      options.answer().then(
        (file) => decide(controller, file),
        (error: unknown) => {
          options.failed(error);
          decide(controller, null);
        },
      );
    },
    onResponseData(controller, chunk) {
      if (state === 'holding') held!.chunks.push(chunk);
      else if (state === 'passing') inner.onResponseData?.(controller, chunk);
    },
    onResponseEnd(controller, trailers) {
      if (state === 'holding') Object.assign(held!, { ended: true, trailers });
      else if (state === 'passing') inner.onResponseEnd?.(controller, trailers);
    },
    onResponseError(controller, error) {
      if (state === 'holding') held!.error = error;
      else if (state === 'passing') inner.onResponseError?.(controller, error);
    },
  };
}
