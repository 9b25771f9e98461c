-- Expired rate-limit hits are deleted by a periodic clean-up (src/http/rate-limit-cleanup.ts), oldest first
-- in small batches, whatever their bucket: a take only ever prunes the buckets it takes, so hits of buckets
-- that are never taken again (a client address seen once) stayed for good. The (bucket, at) index cannot
-- find the oldest hits of all buckets without reading every bucket's.
create index rate_limit_hits_at on rate_limit_hits (at);
