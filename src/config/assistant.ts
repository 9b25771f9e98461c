import { integer, setting, type Setting } from './parsers.ts';

/** The docs assistant (`/discovery/v{1,2}/assistant/{projectId}/message`): its limits and the bounds of one answer. */
export const assistantSettings = {
  assistantRateLimit: setting(
    'QUIRE_ASSISTANT_RATE_LIMIT',
    10_000,
    integer(1),
    'Assistant messages allowed per organization per window (QUIRE_ASSISTANT_RATE_WINDOW_SECONDS); more get 429.',
  ),
  assistantRateWindowSeconds: setting(
    'QUIRE_ASSISTANT_RATE_WINDOW_SECONDS',
    3600,
    integer(1),
    'Length of the window of QUIRE_ASSISTANT_RATE_LIMIT, in seconds.',
  ),
  assistantRateLimitPerAddress: setting(
    'QUIRE_ASSISTANT_RATE_LIMIT_PER_ADDRESS',
    1000,
    integer(1),
    'Assistant messages allowed per client address per window (QUIRE_ASSISTANT_ADDRESS_WINDOW_SECONDS; an IPv6 /64 counts as one address); more get 429.',
  ),
  assistantAddressWindowSeconds: setting(
    'QUIRE_ASSISTANT_ADDRESS_WINDOW_SECONDS',
    86_400,
    integer(1),
    'Length of the window of QUIRE_ASSISTANT_RATE_LIMIT_PER_ADDRESS, in seconds.',
  ),
  assistantMaxSteps: setting(
    'QUIRE_ASSISTANT_MAX_STEPS',
    8,
    integer(1, 100),
    'Model calls one assistant answer may make; reaching it ends the answer with an error part.',
  ),
  assistantMaxSeconds: setting(
    'QUIRE_ASSISTANT_MAX_SECONDS',
    60,
    integer(1, 3600),
    'Wall time of one assistant answer, in seconds; reaching it ends the answer with an error part.',
  ),
  assistantMaxOutputTokens: setting(
    'QUIRE_ASSISTANT_MAX_OUTPUT_TOKENS',
    4000,
    integer(1),
    'Output tokens one assistant answer may use over all its model calls; reaching it ends the answer with an error part.',
  ),
  assistantBodyLimitBytes: setting(
    'QUIRE_ASSISTANT_BODY_LIMIT_BYTES',
    262_144,
    integer(1024),
    'Largest assistant message body, in bytes; larger bodies get 413.',
  ),
} satisfies Record<string, Setting<unknown>>;
