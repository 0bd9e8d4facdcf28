--[[
prune.lua: forget per-key buckets that the history already holds (issue 19).

metering.services.usage_flush copies an account's buckets (consume.lua's "a:", "f:",
"q:", "b:" and "l:" fields) to PostgreSQL, then calls this for those of closed hours
(and the "l:" fields): each group of fields is deleted only when every field still
holds the value that was written, so a count that moved since the copy (a late refund)
stays for the next flush. An absent field counts as 0.

KEYS[1]  the account's state hash, "<prefix>meter:{a<account id>}"
ARGV     groups: m, then m pairs of field name, value as written

Returns the number of groups deleted.
]]

local key = KEYS[1]
local deleted = 0
local i = 1
while i <= #ARGV do
  local m = tonumber(ARGV[i])
  local same = true
  for j = 0, m - 1 do
    local now = tonumber(redis.call('HGET', key, ARGV[i + 1 + 2 * j])) or 0
    if now ~= tonumber(ARGV[i + 2 + 2 * j]) then
      same = false
    end
  end
  if same then
    for j = 0, m - 1 do
      redis.call('HDEL', key, ARGV[i + 1 + 2 * j])
    end
    deleted = deleted + 1
  end
  i = i + 1 + 2 * m
end
return deleted
