--[[
  Claims the posting of a finished job's final report: the first claimer wins until the claim expires.
  KEYS[1] job key     hash (must exist)
  KEYS[2] claim key   string: the claimer, expiring with the claim
  ARGV[1] owner   ARGV[2] ttl in ms   ARGV[3] job id (for the error message)
  Returns 1 when claimed, 0 when a claim is alive.
  Errors: JOB_NOT_FOUND.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return redis.error_reply("JOB_NOT_FOUND " .. ARGV[3])
end
if redis.call("SET", KEYS[2], ARGV[1], "NX", "PX", ARGV[2]) then
  return 1
end
return 0
