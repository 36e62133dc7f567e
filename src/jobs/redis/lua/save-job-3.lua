--[[
  Writes a job checkpoint, fenced: only while the lock holds this lease's token and the stored fence
  is not above the lease's. Writes nothing when refused.
  KEYS[1] job key               hash: record, fence, owner, status, cluster, approval
  KEYS[2] lock key              string: the lease token of the job's cluster
  KEYS[3] unfinished jobs index sorted set
  ARGV[1] lease token   ARGV[2] lease fence   ARGV[3] job id
  ARGV[4] "1" when the status is final, else "0"
  ARGV[5] record JSON   ARGV[6] owner   ARGV[7] status   ARGV[8] pending approval id ("" for none)
  ARGV[9] channel told the job id when its status is final (every replica's lost-record guard forgets it)
  Returns 1. Errors: JOB_NOT_FOUND, LOCK_LOST (token mismatch or stale fence).
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return redis.error_reply("JOB_NOT_FOUND " .. ARGV[3])
end
if redis.call("GET", KEYS[2]) ~= ARGV[1] then
  return redis.error_reply("LOCK_LOST token")
end
local stored = tonumber(redis.call("HGET", KEYS[1], "fence") or "0") or 0
if stored > tonumber(ARGV[2]) then
  return redis.error_reply("LOCK_LOST fence")
end
redis.call("HSET", KEYS[1], "record", ARGV[5], "fence", ARGV[2], "owner", ARGV[6],
  "status", ARGV[7], "approval", ARGV[8])
if ARGV[4] == "1" then
  redis.call("ZREM", KEYS[3], ARGV[3])
  redis.call("PUBLISH", ARGV[9], ARGV[3])
end
return 1
