--[[
refund.lua: give back the unit of a request that was admitted and then answered 5xx
(issue 11.7: a customer does not pay for the service's failures), atomically.

The request's hour in the ring and, when that hour is in the billing period, the
period's count go down by its units (one, or a batch's foods: issue 42.3); its key's
"f:<key id>:<hour>" bucket (failed requests) goes up by as many. Nothing happens when the key's hour holds no admitted request that is
not already given back (the state was lost and rebuilt since, or the bucket was
flushed and pruned): a refund never makes a count negative, nor gives back twice.
metering/inprocess.py (MemoryMeter.refund) does the same in-process. Field names:
consume.lua.

KEYS[1]  the account's state hash, "<prefix>meter:{a<account id>}"
ARGV[1]  the API key's id
ARGV[2]  the hour number the meter counted the request in (consume.lua's reply)
ARGV[3]  TTL of the state, seconds
ARGV[4]  (issue 42.3) the units the request was counted for (consume.lua's ARGV[9]);
         given back whole or not at all

No epoch check (issue 13, consume.lua's KEYS[2]): the request was admitted while the
key's principal was current, and a later revocation does not make its 5xx billable.

Returns 1 when the unit was given back, 0 when there was nothing to give back.
]]

local key = KEYS[1]
local kid = ARGV[1]
local hour = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local units = tonumber(ARGV[4]) or 1
local suffix = ':' .. kid .. ':' .. ARGV[2]

local admitted = tonumber(redis.call('HGET', key, 'a' .. suffix)) or 0
local failed = tonumber(redis.call('HGET', key, 'f' .. suffix)) or 0
if admitted - failed < units then
  return 0
end
redis.call('HINCRBY', key, 'f' .. suffix, units)
local slot = hour % 24
if tonumber(redis.call('HGET', key, 'h' .. slot)) == hour then
  local c = tonumber(redis.call('HGET', key, 'c' .. slot)) or 0
  redis.call('HSET', key, 'c' .. slot, math.max(0, c - units))
end
local ps = tonumber(redis.call('HGET', key, 'ps')) or -1
if ps >= 0 and hour >= ps then
  local pn = tonumber(redis.call('HGET', key, 'pn')) or 0
  redis.call('HSET', key, 'pn', math.max(0, pn - units))
end
redis.call('EXPIRE', key, ttl)
return 1
