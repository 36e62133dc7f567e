--[[
  Stores a new job and indexes it.
  KEYS[1] job key              hash: record, fence, owner, status, cluster, approval
  KEYS[2] all jobs index       sorted set by createdAt
  KEYS[3] unfinished jobs index sorted set by createdAt
  ARGV[1] job id
  ARGV[2] createdAt (score)
  ARGV[3] "1" when the status is final, else "0"
  ARGV[4] record JSON   ARGV[5] fence   ARGV[6] owner ("" for none)
  ARGV[7] status        ARGV[8] cluster ARGV[9] pending approval id ("" for none)
  Returns 1. Errors: JOB_EXISTS.
]]
if redis.call("EXISTS", KEYS[1]) == 1 then
  return redis.error_reply("JOB_EXISTS " .. ARGV[1])
end
redis.call("HSET", KEYS[1], "record", ARGV[4], "fence", ARGV[5], "owner", ARGV[6],
  "status", ARGV[7], "cluster", ARGV[8], "approval", ARGV[9])
redis.call("ZADD", KEYS[2], ARGV[2], ARGV[1])
if ARGV[3] == "0" then
  redis.call("ZADD", KEYS[3], ARGV[2], ARGV[1])
end
return 1
