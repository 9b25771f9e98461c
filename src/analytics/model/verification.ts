/** What ingestion found about a view's claim to be a known agent; stored in `analytics_events.verification`. */
export const Verification = { unknown: 0, verified: 1, spoofed: 2 } as const;
export type Verification = (typeof Verification)[keyof typeof Verification];
