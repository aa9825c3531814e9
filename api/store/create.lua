-- Create a game unless its id is taken.
-- KEYS[1] game hash, KEYS[2] event stream (both carry the game's {id} hash tag), optionally
-- KEYS[3] the bot jobs' stream and KEYS[4] the turn clocks of the game's shard (as commit.lua)
-- ARGV[1] version, ARGV[2] state, ARGV[3] finished (0/1), ARGV[4] seat token hashes
-- (comma separated), ARGV[5] ttl in milliseconds, ARGV[6] tag of the first version,
-- ARGV[7] lobby json ('' = none), ARGV[8] the bot awaited ('' = none), ARGV[9] the turn
-- deadline ('' = none), ARGV[10] the game id, then one (stream id, audience, event json) triple per event
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'tag', ARGV[6], 'state', ARGV[2], 'finished', ARGV[3],
           'tokens', ARGV[4])
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[1], 'lobby', ARGV[7])
end
for i = 11, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i], 'a', ARGV[i + 1], 'e', ARGV[i + 2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if #KEYS >= 4 then
  if ARGV[8] ~= '' then
    redis.call('XADD', KEYS[3], '*', 'g', ARGV[10], 'v', ARGV[1], 'b', ARGV[8])
  end
  if ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[4], ARGV[9], ARGV[10])
  end
end
return 1
