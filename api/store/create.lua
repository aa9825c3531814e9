-- Create a game unless its id is taken.
-- KEYS[1] game hash, KEYS[2] event stream (both carry the game's {id} hash tag), KEYS[3]
-- (optional) action list
-- ARGV[1] version, ARGV[2] state, ARGV[3] finished (0/1), ARGV[4] seat token hashes
-- (comma separated), ARGV[5] ttl in milliseconds, ARGV[6] tag of the first version,
-- ARGV[7] lobby json ('' = none), then one (stream id, audience, event json) triple per event;
-- with KEYS[3], ARGV[8] is the number of actions the action list starts with, and those
-- actions come before the events' triples (a game imported from a record)
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'tag', ARGV[6], 'state', ARGV[2], 'finished', ARGV[3],
           'tokens', ARGV[4])
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[1], 'lobby', ARGV[7])
end
local first = 8
if #KEYS >= 3 then
  local count = tonumber(ARGV[8])
  for i = 9, 8 + count do
    redis.call('RPUSH', KEYS[3], ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
  first = 9 + count
end
for i = first, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i], 'a', ARGV[i + 1], 'e', ARGV[i + 2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
