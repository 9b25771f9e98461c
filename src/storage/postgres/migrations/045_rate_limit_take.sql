-- Rate-limit takes as one statement (http/rate-limit.ts, takeRateLimitsCommitted): the same locks, counts
-- and hits as takeRateLimitsInTurn's transaction of five round trips, in one, committed without waiting
-- for the log's flush. The arrays hold one entry per request, in order: the call it belongs to (the
-- requests of a call are adjacent), its bucket, window and limit. `p_lock_order` is the distinct buckets
-- in the order every take locks them. Answers each request's hits in its window (its call's earlier
-- calls' hits included) and the time of its window's oldest hit.
create function rate_limit_take(
  p_calls integer[],
  p_buckets text[],
  p_windows bigint[],
  p_limits bigint[],
  p_lock_order text[],
  p_now bigint,
  p_consume boolean,
  p_prune boolean
) returns table (used_hits bigint, oldest_hit bigint)
language plpgsql volatile as $$
declare
  n integer := coalesce(array_length(p_buckets, 1), 0);
  counted bigint[];
  oldest_at bigint[];
  taken jsonb := '{}';
  hit_buckets text[] := '{}';
  first_request integer := 1;
  last_request integer;
  allowed boolean;
begin
  -- A crash may forget the last takes' hits, which only lets those clients ask that many more times.
  perform set_config('synchronous_commit', 'off', true);
  insert into rate_limit_buckets (bucket)
    select locked.bucket from unnest(p_lock_order) with ordinality as locked (bucket, place) order by locked.place
    on conflict (bucket) do update set bucket = excluded.bucket;
  if p_prune then
    -- Out of every window the take asks of the bucket.
    delete from rate_limit_hits h
      using (select asked.bucket, max(asked.window_ms) as window_ms from unnest(p_buckets, p_windows) as asked (bucket, window_ms) group by asked.bucket) w
      where h.bucket = w.bucket and h.at <= p_now - w.window_ms;
  end if;
  -- A statement of its own after the locks, so its snapshot holds every hit committed before them.
  with asked as (
    select a.bucket, a.window_ms, a.place from unnest(p_buckets, p_windows) with ordinality as a (bucket, window_ms, place)
  ), windows as (
    select distinct asked.bucket, asked.window_ms from asked
  ), counts as (
    select w.bucket, w.window_ms, c.hits, c.oldest
    from windows w
    cross join lateral (
      select count(*) as hits, min(h.at) as oldest from rate_limit_hits h where h.bucket = w.bucket and h.at > p_now - w.window_ms
    ) c
  )
  select array_agg(counts.hits order by asked.place), array_agg(coalesce(counts.oldest, p_now) order by asked.place)
    into counted, oldest_at
    from asked join counts on counts.bucket = asked.bucket and counts.window_ms = asked.window_ms;
  while first_request <= n loop
    last_request := first_request;
    while last_request < n and p_calls[last_request + 1] = p_calls[first_request] loop
      last_request := last_request + 1;
    end loop;
    allowed := true;
    for k in first_request..last_request loop
      used_hits := counted[k] + coalesce((taken ->> p_buckets[k])::bigint, 0);
      oldest_hit := oldest_at[k];
      if used_hits >= p_limits[k] then
        allowed := false;
      end if;
      return next;
    end loop;
    if allowed and p_consume then
      for k in first_request..last_request loop
        taken := jsonb_set(taken, array[p_buckets[k]], to_jsonb(coalesce((taken ->> p_buckets[k])::bigint, 0) + 1));
        hit_buckets := hit_buckets || p_buckets[k];
      end loop;
    end if;
    first_request := last_request + 1;
  end loop;
  insert into rate_limit_hits (bucket, at) select b, p_now from unnest(hit_buckets) as b;
end
$$;
