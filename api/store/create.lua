-- Create a game unless its id is taken; 1 when created, or when the game there is this very
-- create's (its first version's tag, kept as 'created': the create was sent again after its reply
-- was lost, and a bot worker may have moved the game on meanwhile), else 0.
-- KEYS[1] game hash, KEYS[2] event stream, KEYS[3] action list (all three carry the game's
-- {id} hash tag), optionally KEYS[4] the bot jobs' stream and KEYS[5] the turn clocks of the
-- game's shard (as commit.lua)
-- ARGV[1] the game's short texts, one MessagePack array, as commit.lua takes its own (the first
-- 9 unpacked into the names below):
--   version; finished: '0'/'1'; tokens: the seats' token hashes (comma separated); ttl: in
--   milliseconds; tag: the first version's; bot: the bot awaited ('' = none); deadline: the turn
--   deadline ('' = none); id: the game id; count: the number of actions the action list starts
--   with (0 but for a game imported from a record)
--   then each event's stream id and audience, in pairs
-- ARGV[2] state, ARGV[3] lobby json ('' = none), then the count actions, then each event's json,
-- in the order of their ids in ARGV[1]
local texts = cmsgpack.unpack(ARGV[1])
local version, finished, tokens, ttl, tag, bot, deadline, id, count = unpack(texts, 1, 9)
local state, lobby = ARGV[2], ARGV[3]
count = tonumber(count)
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'created') == tag then
    return 1
  end
  return 0
end
redis.call('HSET', KEYS[1], 'version', version, 'tag', tag, 'state', state, 'finished', finished,
           'tokens', tokens, 'created', tag)
if lobby ~= '' then
  redis.call('HSET', KEYS[1], 'lobby', lobby)
end
if count > 0 then
  for i = 4, 3 + count do
    redis.call('RPUSH', KEYS[3], ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[3], ttl)
end
for i = 4 + count, #ARGV do
  local n = 10 + 2 * (i - 4 - count)  -- the event's stream id and audience among the texts
  redis.call('XADD', KEYS[2], texts[n], 'a', texts[n + 1], 'e', ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if #KEYS >= 5 then
  if bot ~= '' then
    redis.call('XADD', KEYS[4], '*', 'g', id, 'v', version, 'b', bot)
  end
  if deadline ~= '' then
    redis.call('ZADD', KEYS[5], deadline, id)
  end
end
return 1
