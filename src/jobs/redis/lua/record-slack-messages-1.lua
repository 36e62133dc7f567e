--[[
  Records a job's Slack thread and message ts values beside its body (checkpoints do not touch them).
  KEYS[1] job key   hash: slack:thread, msg:<key>
  ARGV[1] job id (for the error message)   ARGV[2] thread JSON, or "" to leave it
  ARGV[3], ARGV[4], ... pairs of message key and ts
  Returns 1.
  Errors: JOB_NOT_FOUND.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return redis.error_reply("JOB_NOT_FOUND " .. ARGV[1])
end
if ARGV[2] ~= "" then
  redis.call("HSET", KEYS[1], "slack:thread", ARGV[2])
end
for i = 3, #ARGV, 2 do
  redis.call("HSET", KEYS[1], "msg:" .. ARGV[i], ARGV[i + 1])
end
return 1
