-- Commit one applied action atomically: compare-and-set on the version and its tag, append
-- the action and its events, record the idempotency result, refresh the expiry.
-- KEYS[1] game hash, KEYS[2] event stream, KEYS[3] action list, KEYS[4] idempotency record
-- KEYS[5] the seats' webhook subscriptions (all five carry the game's {id} hash tag, so this
-- also runs on Redis Cluster), optionally KEYS[6] the bot jobs' stream, KEYS[7] the turn clocks'
-- sorted set and KEYS[8] the webhook messages' stream of the game's shard (in a Cluster, only
-- when they share the game's slot: see redis_store.py)
-- ARGV[1] expected version, ARGV[2] new version, ARGV[3] state, ARGV[4] finished (0/1),
-- ARGV[5] action json, ARGV[6] ttl in milliseconds, ARGV[7] idempotency result,
-- ARGV[8] its ttl in milliseconds, ARGV[9] expected tag, ARGV[10] new tag,
-- ARGV[11] seat token hashes ('' = unchanged), ARGV[12] lobby json ('' = unchanged),
-- ARGV[13] the bot awaited ('' = none: no job), ARGV[14] the turn deadline in Unix seconds
-- ('' = no clock), ARGV[15] the game id,
-- ARGV[16] the ref of the bot job this commit plays ('' = none), ARGV[17] '1' to keep that job
-- for the game's next bot move (with a bot awaited: no job enqueued, the game's 'job' field
-- names it, and the job is handed to its worker ARGV[19] again, its idle time restarting;
-- else '': the job is acknowledged here when KEYS[6] holds it), ARGV[18] the jobs' consumer
-- group, ARGV[19] the worker playing the job,
-- ARGV[20] the seats awaited that players decide for ('0,2'), ARGV[21] the pending decision
-- (JSON), ARGV[22] the commit's time ('' = nothing for the webhooks: see hooks.py; '?' = not
-- made: answered {'notice'}, nothing written, when seats are subscribed), ARGV[23]
-- the seats told their time bank runs low, with the seconds left ('1:12.5,3:4.0'),
-- then one (stream id, audience, event json) triple per event
-- Returns {'missing'} | {'replayed', result} | {'notice'}
--       | {'committed', '1' when seats are subscribed, then without KEYS[8] one (seat, kind, data)
--          triple per webhook message, for the store to enqueue}
--       | {'stale', version, state, finished, tokens, tag, lobby, job} (the game as it is now)
-- A game written before tags existed has none: its tag is ''.
local current = redis.call('HMGET', KEYS[1], 'version', 'tag', 'job')
if not current[1] then
  return {'missing'}
end
local recorded = redis.call('GET', KEYS[4])
if recorded then
  -- A write, on purpose: a store waiting for replicas (WAIT) then waits for this one,
  -- which replicas can only confirm after the recorded commit before it.
  redis.call('PEXPIRE', KEYS[4], ARGV[8])
  return {'replayed', recorded}
end
if current[1] ~= ARGV[1] or (current[2] or '') ~= ARGV[9] then
  local game = redis.call('HMGET', KEYS[1], 'version', 'state', 'finished', 'tokens', 'tag', 'lobby', 'job')
  return {'stale', game[1], game[2], game[3], game[4], game[5] or '', game[6] or '', game[7] or ''}
end
local hooked = redis.call('EXISTS', KEYS[5]) == 1
if hooked and ARGV[22] == '?' then
  return {'notice'}  -- seats subscribed: sent again with the messages' notice (nothing written yet)
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'tag', ARGV[10], 'state', ARGV[3], 'finished', ARGV[4])
if ARGV[11] ~= '' then
  redis.call('HSET', KEYS[1], 'tokens', ARGV[11])
end
if ARGV[12] ~= '' then
  redis.call('HSET', KEYS[1], 'lobby', ARGV[12])
end
local keep = ARGV[17] == '1'
if keep then
  redis.call('HSET', KEYS[1], 'job', ARGV[16])
elseif current[3] and current[3] ~= '' then
  redis.call('HSET', KEYS[1], 'job', '')  -- any other commit ends a worker's run of moves
end
redis.call('RPUSH', KEYS[3], ARGV[5])
for i = 24, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i], 'a', ARGV[i + 1], 'e', ARGV[i + 2])
end
redis.call('SET', KEYS[4], ARGV[7], 'PX', ARGV[8])
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
if #KEYS >= 8 then
  -- The job and the clock are written with the version: no crash can strand a game between.
  if ARGV[13] ~= '' and not keep then
    redis.call('XADD', KEYS[6], '*', 'g', ARGV[15], 'v', ARGV[2], 'b', ARGV[13])
  end
  if keep then
    -- The worker plays on under the job: its claim timeout restarts, like a new job's.
    redis.call('XCLAIM', KEYS[6], ARGV[18], ARGV[19], 0, ARGV[16], 'JUSTID')
  elseif ARGV[16] ~= '' then
    -- The job played is done with its move: acknowledged with it, so it is neither lost nor
    -- handed out again.
    redis.call('XACK', KEYS[6], ARGV[18], ARGV[16])
    redis.call('XDEL', KEYS[6], ARGV[16])
  end
  if ARGV[14] ~= '' then
    redis.call('ZADD', KEYS[7], ARGV[14], ARGV[15])
  else
    redis.call('ZREM', KEYS[7], ARGV[15])
  end
end
local messages = {}
if hooked and ARGV[22] ~= '' then
  -- A seat subscribed: its messages are enqueued with the version, so that none is lost by a
  -- crash nor sent for a commit that failed. 'turn' to each seat newly awaited (not awaited
  -- at the version before: a multi-step turn is one message), 'finished' to every seat.
  local before = ',' .. (redis.call('HGET', KEYS[5], 'awaited') or '') .. ','
  local now = ',' .. ARGV[20] .. ','
  redis.call('HSET', KEYS[5], 'awaited', ARGV[20])
  redis.call('PEXPIRE', KEYS[5], ARGV[6])
  for seat, remaining in string.gmatch(ARGV[23], '(%d+):([^,]+)') do
    if redis.call('HEXISTS', KEYS[5], seat) == 1 then
      table.insert(messages, {seat, 'clock', '{"remaining":' .. remaining .. '}'})
    end
  end
  for _, seat in ipairs(redis.call('HKEYS', KEYS[5])) do
    if string.match(seat, '^%d+$') then
      if ARGV[4] == '1' then
        table.insert(messages, {seat, 'finished', 'null'})
      elseif string.find(now, ',' .. seat .. ',', 1, true) and not string.find(before, ',' .. seat .. ',', 1, true) then
        table.insert(messages, {seat, 'turn', ARGV[21]})
      end
    end
  end
end
local reply = {'committed', hooked and '1' or ''}
for _, message in ipairs(messages) do
  local seat, kind, data = message[1], message[2], message[3]
  if #KEYS >= 8 then
    redis.call('XADD', KEYS[8], '*', 'i', 'msg_' .. ARGV[15] .. '.' .. ARGV[2] .. '.' .. seat .. '.' .. kind,
      'g', ARGV[15], 's', seat, 'v', ARGV[2], 'k', kind, 't', ARGV[22], 'd', data, 'a', '0')
  else
    -- A Cluster game whose slot has no shard (created before game ids were drawn for one):
    -- the store enqueues its messages after this commit (redis_store.py).
    table.insert(reply, seat)
    table.insert(reply, kind)
    table.insert(reply, data)
  end
end
return reply
