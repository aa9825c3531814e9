-- Create a game unless its id is taken; 1 when created, or when the game there is this very
-- create's (its first version's tag, kept as 'created': the create was sent again after its reply
-- was lost, and a bot worker may have moved the game on meanwhile), else 0.
-- KEYS[1] game hash, KEYS[2] event stream, KEYS[3] action list (all three carry the game's
-- {id} hash tag), optionally KEYS[4] the bot jobs' stream and KEYS[5] the turn clocks of the
-- game's shard (as commit.lua)
-- ARGV[1] version, ARGV[2] state, ARGV[3] finished (0/1), ARGV[4] seat token hashes
-- (comma separated), ARGV[5] ttl in milliseconds, ARGV[6] tag of the first version,
-- ARGV[7] lobby json ('' = none), ARGV[8] the bot awaited ('' = none), ARGV[9] the turn
-- deadline ('' = none), ARGV[10] the game id, ARGV[11] the number of actions the action list
-- starts with (0 but for a game imported from a record) and those actions, then one
-- (stream id, audience, event json) triple per event
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'created') == ARGV[6] then
    return 1
  end
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'tag', ARGV[6], 'state', ARGV[2], 'finished', ARGV[3],
           'tokens', ARGV[4], 'created', ARGV[6])
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[1], 'lobby', ARGV[7])
end
local count = tonumber(ARGV[11])
if count > 0 then
  for i = 12, 11 + count do
    redis.call('RPUSH', KEYS[3], ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
for i = 12 + count, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i], 'a', ARGV[i + 1], 'e', ARGV[i + 2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if #KEYS >= 5 then
  if ARGV[8] ~= '' then
    redis.call('XADD', KEYS[4], '*', 'g', ARGV[10], 'v', ARGV[1], 'b', ARGV[8])
  end
  if ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[5], ARGV[9], ARGV[10])
  end
end
return 1
