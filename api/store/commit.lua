-- Commit one applied action atomically: compare-and-set on the version and its tag, append
-- the action and its events, record the idempotency result, refresh the expiry.
-- KEYS[1] game hash, KEYS[2] event stream, KEYS[3] action list, KEYS[4] idempotency record
-- KEYS[5] the seats' webhook subscriptions (all five carry the game's {id} hash tag, so this
-- also runs on Redis Cluster), optionally KEYS[6] the bot jobs' stream, KEYS[7] the turn clocks'
-- sorted set and KEYS[8] the webhook messages' stream of the game's shard (in a Cluster, only
-- when they share the game's slot: see redis_store.py)
-- ARGV[1] the commit's short texts, one MessagePack array (the first 18 unpacked into the names
-- below: one argument, not eighteen, each of which the client formats on its own):
--   expected: the expected version; version: the new one; finished: '0'/'1'; ttl: the game's
--   in milliseconds; record_ttl: the idempotency record's; expected_tag, tag: the expected and
--   the new tag; tokens: the seats' token hashes ('' = unchanged); bot: the bot awaited ('' =
--   none: no job); deadline: the turn deadline in Unix seconds ('' = no clock); id: the game id;
--   job: the ref of the bot job this commit plays ('' = none); keep_job: '1' to keep that job
--   for the game's next bot move (with a bot awaited: no job enqueued, the game's 'job' field
--   names it, and the job is handed to its worker again, its idle time restarting; else '':
--   the job is acknowledged here when KEYS[6] holds it); group: the jobs' consumer group;
--   worker: the worker playing the job; awaited: the seats awaited that players decide for
--   ('0,2'); time: the commit's time ('' = nothing for the webhooks: see webhook_queue.py; '?' = not
--   made: answered {'notice'}, nothing written, when seats are subscribed); low: the seats told
--   their time bank runs low, with the seconds left ('1:12.5,3:4.0')
--   then each event's stream id and audience, in pairs
-- ARGV[2] state, ARGV[3] action json, ARGV[4] idempotency result, ARGV[5] lobby json ('' =
-- unchanged), ARGV[6] the pending decision (JSON, for the webhooks' 'turn' messages),
-- then each event's json, in the order of their ids in ARGV[1]
-- Returns {'missing'} | {'replayed', result} | {'notice'}
--       | {'committed', '1' when seats are subscribed, then without KEYS[8] one (seat, kind, data)
--          triple per webhook message, for the store to enqueue}
--       | {'stale', version, state, finished, tokens, tag, lobby, job} (the game as it is now)
-- A game written before tags existed has none: its tag is ''.
local texts = cmsgpack.unpack(ARGV[1])
local expected, version, finished, ttl, record_ttl, expected_tag, tag, tokens, bot, deadline, id, job, keep_job,
  group, worker, awaited, time, low = unpack(texts, 1, 18)
local state, action, result, lobby, decision = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local current = redis.call('HMGET', KEYS[1], 'version', 'tag', 'job')
if not current[1] then
  return {'missing'}
end
local recorded = redis.call('GET', KEYS[4])
if recorded then
  -- A write, on purpose: a store waiting for replicas (WAIT) then waits for this one,
  -- which replicas can only confirm after the recorded commit before it.
  redis.call('PEXPIRE', KEYS[4], record_ttl)
  return {'replayed', recorded}
end
if current[1] ~= expected or (current[2] or '') ~= expected_tag then
  local game = redis.call('HMGET', KEYS[1], 'version', 'state', 'finished', 'tokens', 'tag', 'lobby', 'job')
  return {'stale', game[1], game[2], game[3], game[4], game[5] or '', game[6] or '', game[7] or ''}
end
local hooked = redis.call('EXISTS', KEYS[5]) == 1
if hooked and time == '?' then
  return {'notice'}  -- seats subscribed: sent again with the messages' notice (nothing written yet)
end
redis.call('HSET', KEYS[1], 'version', version, 'tag', tag, 'state', state, 'finished', finished)
if tokens ~= '' then
  redis.call('HSET', KEYS[1], 'tokens', tokens)
end
if lobby ~= '' then
  redis.call('HSET', KEYS[1], 'lobby', lobby)
end
local keep = keep_job == '1'
if keep then
  redis.call('HSET', KEYS[1], 'job', job)
elseif current[3] and current[3] ~= '' then
  redis.call('HSET', KEYS[1], 'job', '')  -- any other commit ends a worker's run of moves
end
redis.call('RPUSH', KEYS[3], action)
for i = 7, #ARGV do
  local n = 19 + 2 * (i - 7)  -- the event's stream id and audience among the texts
  redis.call('XADD', KEYS[2], texts[n], 'a', texts[n + 1], 'e', ARGV[i])
end
redis.call('SET', KEYS[4], result, 'PX', record_ttl)
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ttl)
end
if #KEYS >= 8 then
  -- The job and the clock are written with the version: no crash can strand a game between.
  if bot ~= '' and not keep then
    redis.call('XADD', KEYS[6], '*', 'g', id, 'v', version, 'b', bot)
  end
  if keep then
    -- The worker plays on under the job: its claim timeout restarts, like a new job's.
    redis.call('XCLAIM', KEYS[6], group, worker, 0, job, 'JUSTID')
  elseif job ~= '' then
    -- The job played is done with its move: acknowledged with it, so it is neither lost nor
    -- handed out again.
    redis.call('XACK', KEYS[6], group, job)
    redis.call('XDEL', KEYS[6], job)
  end
  if deadline ~= '' then
    redis.call('ZADD', KEYS[7], deadline, id)
  else
    redis.call('ZREM', KEYS[7], id)
  end
end
local messages = {}
if hooked and time ~= '' then
  -- A seat subscribed: its messages are enqueued with the version, so that none is lost by a
  -- crash nor sent for a commit that failed. 'turn' to each seat newly awaited (not awaited
  -- at the version before: a multi-step turn is one message), 'finished' to every seat.
  local before = ',' .. (redis.call('HGET', KEYS[5], 'awaited') or '') .. ','
  local now = ',' .. awaited .. ','
  redis.call('HSET', KEYS[5], 'awaited', awaited)
  redis.call('PEXPIRE', KEYS[5], ttl)
  for seat, remaining in string.gmatch(low, '(%d+):([^,]+)') do
    if redis.call('HEXISTS', KEYS[5], seat) == 1 then
      table.insert(messages, {seat, 'clock', '{"remaining":' .. remaining .. '}'})
    end
  end
  for _, seat in ipairs(redis.call('HKEYS', KEYS[5])) do
    if string.match(seat, '^%d+$') then
      if finished == '1' then
        table.insert(messages, {seat, 'finished', 'null'})
      elseif string.find(now, ',' .. seat .. ',', 1, true) and not string.find(before, ',' .. seat .. ',', 1, true) then
        table.insert(messages, {seat, 'turn', decision})
      end
    end
  end
end
local reply = {'committed', hooked and '1' or ''}
for _, message in ipairs(messages) do
  local seat, kind, data = message[1], message[2], message[3]
  if #KEYS >= 8 then
    redis.call('XADD', KEYS[8], '*', 'i', 'msg_' .. id .. '.' .. version .. '.' .. seat .. '.' .. kind,
      'g', id, 's', seat, 'v', version, 'k', kind, 't', time, 'd', data, 'a', '0')
  else
    -- A Cluster game whose slot has no shard (created before game ids were drawn for one):
    -- the store enqueues its messages after this commit (redis_store.py).
    table.insert(reply, seat)
    table.insert(reply, kind)
    table.insert(reply, data)
  end
end
return reply
