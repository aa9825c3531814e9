// The contract as a TypeScript client meets it (issue 24), on the types openapi-typescript
// generates from openapi/openapi.json: the type assertions and the narrowing below must pass
// `tsc --strict` (no `any`, no casts), then `node dist/contract.js --url <server>` checks the
// same against a running server. scripts/check-ts-client runs both.
import createClient from "openapi-fetch";
import { Ajv2020 } from "ajv/dist/2020.js";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { components, operations, paths } from "./darkroad.js";

type Event = components["schemas"]["Event"];
type Problem = components["schemas"]["ProblemDetails"];
type FieldError = components["schemas"]["FieldError"];

// -- what the generated types say ------------------------------------------------------------
type Assert<T extends true> = T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Last-Event-ID is a string (a header's value is text; an EventSource sends the id back as such).
type LastEventId = NonNullable<operations["streamEvents"]["parameters"]["header"]>["Last-Event-ID"];
export type LastEventIdIsText = Assert<Same<LastEventId, string | undefined>>;
// Every 429 declares Retry-After (an undeclared header would be `unknown`).
type RateLimited = operations["createGame"]["responses"][429]["headers"];
export type RetryAfterIsDeclared = Assert<Same<RateLimited["Retry-After"], string>>;
// Members of some problem types only are optional and never null: absent, not `T | null`.
export type ErrorsMayBeAbsent = Assert<Same<Problem["errors"], FieldError[] | undefined>>;
export type VersionMayBeAbsent = Assert<Same<Problem["version"], number | undefined>>;
export type PluginMayBeAbsent = Assert<Same<Problem["plugin"], string | undefined>>;

// A known event's type narrows its data, without a guard or a cast: `plugin` is only on plugins' events.
export function joinedName(event: Event): string | undefined {
  if (!("plugin" in event) && event.type === "seat_joined") return event.data.name;
  return undefined;
}

export function describe(event: Event): string {
  if ("plugin" in event) return `${event.plugin ?? "a fan plugin"}: ${event.type}`;
  switch (event.type) {
    case "game_started":
      return `${event.data.players} seats, buildings ${event.data.buildings.join(", ")}`;
    case "moved":
      return `seat ${event.seat} moved ${event.data.steps} to ${event.data.position}`;
    default:
      return event.type;
  }
}

// -- what the server answers ------------------------------------------------------------------
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`contract: ${what}`);
  console.log(`ok: ${what}`);
}

const keys = (problem: Problem | undefined) => (problem?.errors ?? []).map((e: FieldError) => `${e.source}:${e.key}`);

async function main(url: string): Promise<void> {
  // A validator ajv compiles from the server's own document (a function generated from the
  // document: its `Event` schema), for one message of the stream below. Made first, on a
  // connection closed after the document: compiling blocks Node's event loop (seconds on a
  // loaded machine), and a kept-alive connection idle meanwhile can be closed by the server
  // (uvicorn's 5 s keep-alive) unseen, so that the next request on it fails with "other side
  // closed" (undici's `connection: close` ends the connection with the response).
  const document: unknown = await (await fetch(`${url}/schema/openapi.json`, { headers: { connection: "close" } })).json();
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  if (typeof document !== "object" || document === null) throw new Error("no document");
  ajv.addSchema(document, "darkroad");
  const isEvent = ajv.compile<Event>({ $ref: "darkroad#/components/schemas/Event" });
  const parseEvent = (data: string): Event => {
    const value: unknown = JSON.parse(data);
    if (!isEvent(value)) throw new Error(`not an Event: ${ajv.errorsText(isEvent.errors)}`);
    return value;
  };
  const api = createClient<paths>({ baseUrl: url });

  const tooMany = await api.POST("/v1/games", { body: { players: 5 } });
  check(tooMany.response.status === 400 && keys(tooMany.error).join() === "body:players", "an invalid body lists its errors");
  const solo = await api.POST("/v1/games", { body: { players: 2, private_concern: true } });
  check(solo.response.status === 400 && keys(solo.error).join() === "body:private_concern", "the document's `not` is a 400");

  const created = await api.POST("/v1/games", { body: { players: 2, seed: 5 } });
  if (created.data === undefined) throw new Error(`create: ${created.response.status}`);
  const game_id = created.data.id;
  const early = await api.GET("/v1/games/{game_id}/score", { params: { path: { game_id } } });
  // The 409 has no `errors`: code written for absent members works.
  check(early.response.status === 409 && early.error !== undefined && early.error.errors === undefined &&
    (early.error.errors ?? []).length === 0, "a 409 has no errors member (absent, not null)");

  // One message of the stream, parsed and checked by the validator above.
  const stream = await api.GET("/v1/games/{game_id}/stream", {
    params: { path: { game_id }, header: { "Last-Event-ID": "0" } }, parseAs: "stream",
  });
  if (!stream.data) throw new Error(`stream: ${stream.response.status}`);
  const reader = stream.data.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  let first: Event | undefined;
  for (let next = await reader.read(); !next.done && first === undefined; next = await reader.read()) {
    if (next.value.data) first = parseEvent(next.value.data);
  }
  await reader.cancel();
  check(first !== undefined && first.n === 1 && !("plugin" in first), `Last-Event-ID "0" resumes at event 1 (${first && describe(first)})`);
  check(!isEvent({ n: 1, type: "seat_joined", seat: 0, private_to: null, data: {} }), "the validator refuses a known event without its data");
  check(isEvent({ n: 1, type: "lamps_lit", seat: 0, private_to: null, data: { lamps: 2 }, plugin: null }), "and takes a plugin's event");
  console.log("contract: ok");
}

const at = process.argv.indexOf("--url");
await main((at > 0 ? process.argv[at + 1] : undefined) ?? "http://127.0.0.1:8000");
