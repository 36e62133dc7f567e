--[[
  Releases a lock, only by the lease that holds it.
  KEYS[1] lock key         string: the lease token
  KEYS[2] lock holder key  hash: jobId, owner, since
  ARGV[1] token
  Returns 1 when released, 0 when the lock is gone or held by another lease.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1], KEYS[2])
  return 1
end
return 0
