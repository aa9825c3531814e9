// A darkroad bot on the types openapi-typescript generates from openapi/openapi.json (see README.md).
//
// It creates a game, plays every seat with random legal actions (one client per seat, each
// with its own seat token, as separate players would), follows the event stream to know
// when to act, and prints the final score.
import { randomUUID } from "node:crypto";
import createClient, { type Client } from "openapi-fetch";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { components, paths } from "./darkroad.js";

type Api = Client<paths>;
type ActionList = components["schemas"]["ActionList"];
type Event = components["schemas"]["Event"];
type Problem = components["schemas"]["ProblemDetails"];

class ApiError extends Error {
  constructor(status: number, problem?: Problem) {
    super(problem ? `${status} ${problem.type}: ${problem.detail}` : `unexpected answer ${status}`);
  }
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

// Submit one random legal action. Retries reuse the Idempotency-Key: a 503 may come after the
// action was committed, and the same key makes the server answer it instead of acting twice.
async function act(me: Api, gameId: string, listed: ActionList, random: () => number): Promise<void> {
  const action = listed.actions[Math.floor(random() * listed.actions.length)];
  if (action === undefined) return;
  const header = { "If-Match": `"${listed.version}"`, "Idempotency-Key": randomUUID() };
  for (let attempt = 1; attempt <= 5; attempt++) {
    const { error, response } = await me.POST("/v1/games/{game_id}/actions", {
      params: { path: { game_id: gameId }, header },
      body: action,
    });
    if (response.ok) return;
    if (response.status === 409 && error?.type === "stale-version") return; // someone acted first
    if (response.status !== 503) throw new ApiError(response.status, error);
    await sleep(Number(response.headers.get("Retry-After") ?? 1) * attempt);
  }
  throw new ApiError(503);
}

// Act while the game waits for this seat; false once the game is over.
async function takeTurns(me: Api, gameId: string, random: () => number): Promise<boolean> {
  for (;;) {
    const { data, error, response } = await me.GET("/v1/games/{game_id}/actions", {
      params: { path: { game_id: gameId } },
    });
    if (data === undefined) throw new ApiError(response.status, error);
    if (data.status === "finished") return false;
    if (data.actions.length === 0) return true;
    await act(me, gameId, data, random);
  }
}

// The game's events as this seat may see them, live: GET .../stream (server-sent events). The
// server ends a stream now and then; reconnecting with Last-Event-ID resumes after the last
// event received; 204 means the game is over and every event was sent.
async function* follow(me: Api, gameId: string): AsyncGenerator<Event> {
  let after = -1;
  for (;;) {
    const { data, response } = await me.GET("/v1/games/{game_id}/stream", {
      params: { path: { game_id: gameId }, header: { "Last-Event-ID": String(after) } },
      parseAs: "stream",
    });
    if (response.status === 204) return;
    if (!response.ok || !data) throw new ApiError(response.status);
    const messages = data.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    const reader = messages.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const event: Event = JSON.parse(next.value.data);
      after = event.n;
      yield event;
    }
  }
}

function seeded(seed: number): () => number {
  // mulberry32: a small seeded generator, so a run can be repeated
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function playSeat(url: string, gameId: string, seat: number, token: string, seed: number, verbose: boolean) {
  const me = createClient<paths>({ baseUrl: url, headers: { Authorization: `Bearer ${token}` } });
  const random = seeded(seed * 10 + seat);
  if (!(await takeTurns(me, gameId, random))) return;
  for await (const event of follow(me, gameId)) {
    if (verbose) console.log(`seat ${seat} saw #${event.n} ${event.type}`);
    if (!(await takeTurns(me, gameId, random))) return;
  }
}

async function main(url: string, players: number, seed: number, verbose: boolean): Promise<void> {
  const anyone = createClient<paths>({ baseUrl: url });
  const created = await anyone.POST("/v1/games", { body: { players, seed } });
  if (created.data === undefined) throw new ApiError(created.response.status, created.error);
  const game = created.data;
  console.log(`game ${game.id} (${players} players, seed ${seed})`);
  await Promise.all(
    game.seats.flatMap(({ seat, token }) => (token === null ? [] : [playSeat(url, game.id, seat, token, seed, verbose)])),
  );
  const { data: final, error, response } = await anyone.GET("/v1/games/{game_id}/score", {
    params: { path: { game_id: game.id } }, // a spectator read: no token
  });
  if (final === undefined) throw new ApiError(response.status, error);
  for (const line of final.score) {
    console.log(
      `seat ${line.seat}: ${line.total} = base ${line.base} (min of ${line.coins} coins, ${line.prestige} prestige)` +
        ` + ${line.deed_vp} deeds + ${line.illuminated_vp} illuminated + ${line.goods_vp} goods` +
        ` + ${line.quartz_vp} quartz; rank ${line.rank}`,
    );
  }
  console.log(`winners: ${final.winners.map((seat) => `seat ${seat}`).join(", ")}`);
}

const option = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
await main(
  option("url", "http://127.0.0.1:8000"),
  Number(option("players", "2")),
  Number(option("seed", String(Math.floor(Math.random() * 2 ** 31)))),
  process.argv.includes("--verbose"),
);
