-- Commit one applied action atomically: compare-and-set on the version, append the
-- action and its events, record the idempotency result, refresh the expiry.
-- KEYS[1] game hash, KEYS[2] event stream, KEYS[3] action list, KEYS[4] idempotency record
-- (all four carry the game's {id} hash tag, so this also runs on Redis Cluster)
-- ARGV[1] expected version, ARGV[2] new version, ARGV[3] state, ARGV[4] finished (0/1),
-- ARGV[5] action json, ARGV[6] ttl in milliseconds, ARGV[7] idempotency result,
-- ARGV[8] its ttl in milliseconds, then one (stream id, audience, event json) triple per event
-- Returns {'missing'} | {'replayed', result} | {'committed'}
--       | {'stale', version, state, finished, tokens} (the game as it is now)
local current = redis.call('HGET', KEYS[1], 'version')
if not current then
  return {'missing'}
end
local recorded = redis.call('GET', KEYS[4])
if recorded then
  return {'replayed', recorded}
end
if current ~= ARGV[1] then
  local game = redis.call('HMGET', KEYS[1], 'version', 'state', 'finished', 'tokens')
  return {'stale', game[1], game[2], game[3], game[4]}
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3], 'finished', ARGV[4])
redis.call('RPUSH', KEYS[3], ARGV[5])
for i = 9, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i], 'a', ARGV[i + 1], 'e', ARGV[i + 2])
end
redis.call('SET', KEYS[4], ARGV[7], 'PX', ARGV[8])
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
return {'committed'}
