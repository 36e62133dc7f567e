--[[
  Reads who holds a lock.
  KEYS[1] lock key         string: the lease token
  KEYS[2] lock holder key  hash: jobId, owner, since, expiresAt
  Returns nil when the lock is free, else {jobId, owner, since, expiresAt} (server clock, epoch ms).
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return nil end
local holder = redis.call("HMGET", KEYS[2], "jobId", "owner", "since", "expiresAt")
return {holder[1] or "", holder[2] or "", tonumber(holder[3] or 0), tonumber(holder[4] or 0)}
