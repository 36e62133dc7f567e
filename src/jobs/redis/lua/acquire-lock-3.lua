--[[
  Takes a cluster lock if it is free and bumps the cluster's fencing counter.
  KEYS[1] lock key         string: the lease token, expires with the lease
  KEYS[2] lock holder key  hash: jobId, owner, since, expiresAt (same expiry as the lock)
  KEYS[3] fence key        integer: per-cluster fencing counter, never expires
  ARGV[1] token (random per acquisition)
  ARGV[2] ttl in ms
  ARGV[3] job id
  ARGV[4] owner
  Returns {1, fence, since, expiresAt} when acquired,
          {0, jobId, owner, since, expiresAt} when held by someone else.
  Times are the Redis server's clock in epoch ms.
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ttl) then
  local fence = redis.call("INCR", KEYS[3])
  redis.call("DEL", KEYS[2])
  redis.call("HSET", KEYS[2], "jobId", ARGV[3], "owner", ARGV[4], "since", now, "expiresAt", now + ttl)
  redis.call("PEXPIRE", KEYS[2], ttl)
  return {1, fence, now, now + ttl}
end
local holder = redis.call("HMGET", KEYS[2], "jobId", "owner", "since", "expiresAt")
return {0, holder[1] or "", holder[2] or "", tonumber(holder[3] or now), tonumber(holder[4] or now)}
