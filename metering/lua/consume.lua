--[[
consume.lua: one metering decision for one account, atomically (spec 7, 8).

The quota check, the burst check and the count are one all-or-nothing step: either
the request is admitted and counted (one token taken, its hour and its billing period
incremented, and its key's hourly bucket too), or it is refused and neither the quota
nor the burst bucket changes (a 429 never counts): only the key's hourly count of that
kind of refusal goes up (issue 16: usage by outcome).
metering/inprocess.py runs the same algorithm in-process; tests/metering/test_parity.py
keeps the two identical. Window and bucket arithmetic: metering/windows.py, bucket.py.

KEYS[1]  the account's state hash, "<prefix>meter:{a<account id>}". One key per
         account under one hash tag, so the script runs unchanged on Redis Cluster.
         Fields: t (latest clock seen, us), tat (burst bucket's theoretical arrival
         time, us), ps (billing period's first hour, -1 on a rolling day), pn (requests
         in period ps), h<i>/c<i> for i = hour % 24 (a ring of 24 hourly counts: the
         hour number held in slot i and its count; the quota counts these).
         The per-key hourly buckets (issue 19), copied to PostgreSQL as absolute
         values by metering.history.usage_flush: "a:<key id>:<hour>" requests admitted,
         "f:<key id>:<hour>" of those, answered 5xx and given back (refund.lua),
         "q:<key id>:<hour>" refused by the quota, "b:<key id>:<hour>" refused by the
         burst limit; "l:<key id>" the key's latest admitted request (us). Every one of
         them only ever grows (prune.lua deletes flushed ones of closed hours).
ARGV[1]  "consume" or "peek" (peek decides nothing and writes nothing but a seed)
ARGV[2]  now, us since the epoch, from the caller's clock. The script never lets time
         go back: it uses max(now, t), so hosts whose clocks differ a little cannot
         reopen an hour or a billing period that another host already closed.
ARGV[3]  quota: requests allowed in the window
ARGV[4]  the billing period's first hour number, or -1 for the rolling 24 hours
ARGV[5]  bucket refill interval, us per token; 0 = unthrottled
ARGV[6]  bucket size, tokens
ARGV[7]  TTL of the state, seconds (an idle account's state expires; it is rebuilt
         from the durable history on its next request)
ARGV[8]  the API key's id, whose hourly buckets count the outcome (0 on peek)
ARGV[9]  (issue 42.3) units: what the request costs (1; a batch of foods, one per
         distinct id asked, found or not). Admitted only when all of them fit in the quota and the bucket holds
         min(units, size) tokens; then the quota, the hour, the period and the key's
         "a:" bucket count them all. A refusal counts nothing but one refusal.
ARGV[10] "1" when a seed follows, else "0"
ARGV[11] seed: requests in the period starting at ARGV[4]
ARGV[12..#ARGV-1] seed: name, value pairs: an hour number and its count for the ring
         (the last 24 hours), or a per-key bucket field (above) and its value as the
         history holds it (the current hour's), so absolute values written later
         continue the history instead of restarting it
ARGV[#ARGV] (issue 13) always the last argument, after any seed: the epoch the
         caller's copy of the key's principal was read under, or "" for no check.
         When KEYS[2] does not hold it (changed by a revocation, rotation, tier or
         market change or the owner's deactivation; or lost), the script decides and
         writes nothing (no seed, no outcome bucket) and returns outcome 5; the caller
         reads the key again and retries. A peek passes "" (it decides nothing, and
         follows a consume that checked the epoch); refund.lua checks no epoch (it gives
         back a request that was admitted while the principal was current).
KEYS[2]  (issue 13) the account's epoch, "<prefix>:epoch:{a<account id>}" (keys/cache.py
         epoch_key), under the same hash tag as KEYS[1] (core.redis.account_tag),
         so both keys are in one Cluster slot

Returns {outcome, used, tat, hour, [c(hour-23) .. c(hour)]}:
  outcome 0 = no state for this account: call again with a seed from the history
          1 = admitted and counted; used counts this request's units
          2 = refused, quota spent (on a rolling day the 24 hourly counts follow, for
              Retry-After)
          3 = refused, burst bucket empty
          4 = peeked (nothing decided; on a rolling day the 24 hourly counts follow)
          5 = (issue 13) the caller's principal is stale (ARGV[#ARGV]): nothing decided
              or written
  used    requests counted in the window; tat the bucket's state; hour the hour used.
]]

local key = KEYS[1]
local mode = ARGV[1]
local now = tonumber(ARGV[2])
local quota = tonumber(ARGV[3])
local want_ps = tonumber(ARGV[4])
local interval = tonumber(ARGV[5])
local size = tonumber(ARGV[6])
local ttl = tonumber(ARGV[7])
local kid = ARGV[8]
local units = tonumber(ARGV[9])
local HOUR = 3600000000

-- issue 13: decide only for a current principal (see KEYS[2])
local epoch = ARGV[#ARGV]
if epoch ~= '' and redis.call('GET', KEYS[2]) ~= epoch then
  return {5, 0, 0, 0}
end

if redis.call('EXISTS', key) == 0 then
  if ARGV[10] ~= '1' then
    return {0, 0, 0, 0}
  end
  local seed = {'t', now, 'tat', 0, 'ps', want_ps, 'pn', tonumber(ARGV[11])}
  for i = 12, #ARGV - 1, 2 do
    local h = tonumber(ARGV[i])
    if h == nil then -- a per-key bucket field
      seed[#seed + 1] = ARGV[i]
      seed[#seed + 1] = tonumber(ARGV[i + 1])
    else
      local slot = h % 24
      seed[#seed + 1] = 'h' .. slot
      seed[#seed + 1] = h
      seed[#seed + 1] = 'c' .. slot
      seed[#seed + 1] = tonumber(ARGV[i + 1])
    end
  end
  redis.call('HSET', key, unpack(seed))
  redis.call('EXPIRE', key, ttl)
end

local state = redis.call('HMGET', key, 't', 'tat', 'ps', 'pn')
local t = tonumber(state[1]) or 0
if now < t then
  now = t
end
local hour = math.floor(now / HOUR)
local slot = hour % 24
local tat = tonumber(state[2]) or 0
local ps = tonumber(state[3]) or -1
local pn = tonumber(state[4]) or 0

-- The 24 hourly counts are read only when needed: on a rolling day, and when a new
-- billing period starts; otherwise only the current hour's slot.
-- counts[k] holds the count of hour (hour - 24 + k), k = 1..24
local counts = {}
local slot_hour = nil
if want_ps < 0 or want_ps > ps then
  local names = {}
  for i = 0, 23 do
    names[#names + 1] = 'h' .. i
    names[#names + 1] = 'c' .. i
  end
  local ring = redis.call('HMGET', key, unpack(names))
  for k = 1, 24 do
    counts[k] = 0
  end
  for i = 0, 23 do
    local h = tonumber(ring[1 + 2 * i])
    if h ~= nil and h <= hour and h > hour - 24 then
      counts[h - hour + 24] = tonumber(ring[2 + 2 * i]) or 0
    end
  end
  slot_hour = tonumber(ring[1 + 2 * slot])
else
  slot_hour = tonumber(redis.call('HGET', key, 'h' .. slot))
end

local used = 0
if want_ps >= 0 then
  -- A period only ever moves forward: a caller whose clock lags a renewal that
  -- another host already saw counts in the newer period.
  if want_ps > ps then
    ps = want_ps
    pn = 0
    for k = 1, 24 do
      if hour - 24 + k >= ps then
        pn = pn + counts[k]
      end
    end
  end
  used = pn
else
  for k = 1, 24 do
    used = used + counts[k]
  end
end

-- The reply of a peek and of the quota 429: on a rolling day the 24 hourly counts
-- follow it (for Retry-After).
local function with_day_counts(outcome)
  local reply = {outcome, used, tat, hour}
  if want_ps < 0 then
    for k = 1, 24 do
      reply[#reply + 1] = counts[k]
    end
  end
  return reply
end

if mode == 'peek' then
  return with_day_counts(4)
end

local suffix = ':' .. kid .. ':' .. hour

if used + units > quota then
  redis.call('HINCRBY', key, 'q' .. suffix, 1)
  redis.call('EXPIRE', key, ttl)
  return with_day_counts(2)
end

if interval > 0 then
  -- one token a unit, at most the bucket's size (metering/bucket.py tokens_for)
  local take = math.max(1, math.min(units, size))
  local start = math.max(tat, now)
  if start - now > (size - take) * interval then
    redis.call('HINCRBY', key, 'b' .. suffix, 1)
    redis.call('EXPIRE', key, ttl)
    return {3, used, start, hour}
  end
  tat = start + take * interval
end

if slot_hour == hour then
  redis.call('HINCRBY', key, 'c' .. slot, units)
else
  redis.call('HSET', key, 'h' .. slot, hour, 'c' .. slot, units)
end
redis.call('HINCRBY', key, 'a' .. suffix, units)
redis.call('HSET', key, 't', now, 'tat', tat, 'ps', ps, 'pn', pn + units, 'l:' .. kid, now)
redis.call('EXPIRE', key, ttl)
return {1, used + units, tat, hour}
