--[[
  Takes over an orphaned job: acquires its cluster lock with a new, higher fence, stamps the job with
  that fence and the new owner (so the previous owner's writes are refused), and audits it.
  KEYS[1] lock key         string: the lease token
  KEYS[2] lock holder key  hash: jobId, owner, since, expiresAt
  KEYS[3] fence key        integer
  KEYS[4] job key          hash: status, fence, owner
  KEYS[5] audit stream
  ARGV[1] token   ARGV[2] ttl ms   ARGV[3] job id   ARGV[4] new owner
  ARGV[5] audit cap   ARGV[6] audit detail
  Returns {1, fence, since, expiresAt} when taken over, {0, jobId, owner, since, expiresAt} when the
  lock is held, {2, status} when the job is finished. Errors: JOB_NOT_FOUND.
]]
local status = redis.call("HGET", KEYS[4], "status")
if not status then
  return redis.error_reply("JOB_NOT_FOUND " .. ARGV[3])
end
if status == "succeeded" or status == "aborted" or status == "failed" then
  return {2, status}
end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
if not redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ttl) then
  local holder = redis.call("HMGET", KEYS[2], "jobId", "owner", "since", "expiresAt")
  return {0, holder[1] or "", holder[2] or "", tonumber(holder[3] or now), tonumber(holder[4] or now)}
end
local fence = redis.call("INCR", KEYS[3])
redis.call("DEL", KEYS[2])
redis.call("HSET", KEYS[2], "jobId", ARGV[3], "owner", ARGV[4], "since", now, "expiresAt", now + ttl)
redis.call("PEXPIRE", KEYS[2], ttl)
local previous = redis.call("HGET", KEYS[4], "owner") or ""
redis.call("HSET", KEYS[4], "fence", fence, "owner", ARGV[4])
redis.call("XADD", KEYS[5], "MAXLEN", ARGV[5], "*", "at", now, "actor", "bot:" .. ARGV[4],
  "action", "lock-taken-over", "detail", ARGV[6] .. " (previous owner: " .. previous .. ", fence " .. fence .. ")")
return {1, fence, now, now + ttl}
