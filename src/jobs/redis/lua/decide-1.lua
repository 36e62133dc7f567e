--[[
  Records an approval decision, first writer wins, and wakes waiters.
  KEYS[1] job key   hash: approval (pending approval id), decision:<approvalId> (JSON)
  ARGV[1] approval id
  ARGV[2] decision JSON
  ARGV[3] channel to publish the approval id on
  ARGV[4] job id (for the error message)
  Returns {1} recorded, {2, existing decision JSON} already decided, {0} not awaiting this approval.
  Errors: JOB_NOT_FOUND.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return redis.error_reply("JOB_NOT_FOUND " .. ARGV[4])
end
local field = "decision:" .. ARGV[1]
local existing = redis.call("HGET", KEYS[1], field)
if existing then
  return {2, existing}
end
if redis.call("HGET", KEYS[1], "approval") ~= ARGV[1] then
  return {0}
end
redis.call("HSET", KEYS[1], field, ARGV[2])
redis.call("PUBLISH", ARGV[3], ARGV[1])
return {1}
