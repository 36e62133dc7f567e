--[[
  Operator's manual unlock: frees a lock whoever holds it.
  KEYS[1] lock key         string: the lease token
  KEYS[2] lock holder key  hash: jobId, owner, since, expiresAt
  Returns {0} when the lock was free, else {1, jobId, owner, since, expiresAt} of the evicted holder.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  redis.call("DEL", KEYS[2])
  return {0}
end
local holder = redis.call("HMGET", KEYS[2], "jobId", "owner", "since", "expiresAt")
redis.call("DEL", KEYS[1], KEYS[2])
return {1, holder[1] or "", holder[2] or "", tonumber(holder[3] or 0), tonumber(holder[4] or 0)}
