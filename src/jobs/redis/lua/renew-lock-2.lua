--[[
  Extends a lease, only if the lock still holds this lease's token.
  KEYS[1] lock key         string: the lease token
  KEYS[2] lock holder key  hash: jobId, owner, since, expiresAt
  ARGV[1] token
  ARGV[2] ttl in ms (from now)
  Returns 1 when extended, 0 when the lock is gone or held by another lease.
]]
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
  return 0
end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call("PEXPIRE", KEYS[1], ttl)
redis.call("HSET", KEYS[2], "expiresAt", now + ttl)
redis.call("PEXPIRE", KEYS[2], ttl)
return 1
