--[[
  Records a pause / resume / abort request on an unfinished job.
  KEYS[1] job key   hash: status, ctl:pause, ctl:abort, ctl:by, ctl:at, ctl:seq
  ARGV[1] action: pause | resume | abort
  ARGV[2] by   ARGV[3] at (epoch ms)   ARGV[4] job id (for the error message)
  Returns {1, pause, abort, by, at, seq} when recorded (seq grows by one per request: their order), {2, status}
  when the job is finished.
  Errors: JOB_NOT_FOUND.
]]
local status = redis.call("HGET", KEYS[1], "status")
if not status then
  return redis.error_reply("JOB_NOT_FOUND " .. ARGV[4])
end
if status == "succeeded" or status == "aborted" or status == "failed" then
  return {2, status}
end
local pause = redis.call("HGET", KEYS[1], "ctl:pause") or "0"
local abort = redis.call("HGET", KEYS[1], "ctl:abort") or "0"
if ARGV[1] == "pause" then pause = "1"
elseif ARGV[1] == "resume" then pause = "0"
elseif ARGV[1] == "abort" then abort = "1"
end
redis.call("HSET", KEYS[1], "ctl:pause", pause, "ctl:abort", abort, "ctl:by", ARGV[2], "ctl:at", ARGV[3])
local seq = redis.call("HINCRBY", KEYS[1], "ctl:seq", 1)
return {1, pause, abort, ARGV[2], ARGV[3], seq}
