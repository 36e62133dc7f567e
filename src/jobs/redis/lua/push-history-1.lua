--[[
  Adds a finished rollout to a cluster's history and trims it to the newest N.
  KEYS[1] history list (newest first)
  ARGV[1] entry JSON
  ARGV[2] how many entries to keep
  Returns the list length after trimming.
]]
redis.call("LPUSH", KEYS[1], ARGV[1])
redis.call("LTRIM", KEYS[1], 0, tonumber(ARGV[2]) - 1)
return redis.call("LLEN", KEYS[1])
