import { integer, setting, type Setting } from './parsers.ts';

/** The dashboard: sign-in links, sessions, invitations and the password sign-in limit. */
export const dashboardSettings = {
  dashboardLinkMinutes: setting('QUIRE_DASHBOARD_LINK_MINUTES', 30, integer(1, 10_080), 'How long a dashboard sign-in link works (it works once), in minutes.'),
  dashboardSessionHours: setting(
    'QUIRE_DASHBOARD_SESSION_HOURS',
    168,
    integer(1, 8760),
    'How long a dashboard session lasts before signing in again, in hours.',
  ),
  dashboardIdleHours: setting(
    'QUIRE_DASHBOARD_IDLE_HOURS',
    12,
    integer(1, 8760),
    'A dashboard session not used for this many hours ends before QUIRE_DASHBOARD_SESSION_HOURS.',
  ),
  invitationHours: setting(
    'QUIRE_INVITATION_HOURS',
    72,
    integer(1, 8760),
    'How long an invitation link an owner creates on the People page works (it works once), in hours.',
  ),
  signInRateLimit: setting(
    'QUIRE_SIGN_IN_RATE_LIMIT',
    10,
    integer(1),
    'Password sign-in attempts allowed per client address and, separately, per account in each window; more get 429.',
  ),
  signInRateWindowSeconds: setting('QUIRE_SIGN_IN_RATE_WINDOW_SECONDS', 900, integer(1), 'Length of the window of QUIRE_SIGN_IN_RATE_LIMIT, in seconds.'),
} satisfies Record<string, Setting<unknown>>;
