// The table's event log ("What happened"), newest first: the game's events in words, and the
// page's own notes (a decision with one answer the page took by itself). Every line keeps its
// event, so the lines are worded again when the seats' names become known or change (events
// arrive on the stream before the first view, which names the seats), and a replay shows the
// lines up to the moment it replays. The list scrolls, so it is a tab stop of its own
// (axe-core's scrollable-region-focusable: a keyboard reaches and scrolls it).
import type { GameEvent } from "./api";
import { h } from "./dom";
import { t } from "./i18n";

interface Line {
  readonly item: HTMLLIElement;
  readonly event: GameEvent | null;
  /** The label of the answer an ``answered`` event names, as the actions listed it then. */
  readonly label: string | undefined;
}

/** ``text`` as a sentence: a capital first, a full stop last unless it ends with punctuation. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1) + (/[.?!]$/.test(trimmed) ? "" : ".");
}

export class EventLog {
  readonly element = h("ol", {
    class: "log", reversed: true, tabindex: 0, "aria-label": t("Events, newest first"),
  });
  /** The last event received (the stream resumes after it). */
  lastEvent = -1;
  private readonly lines: Line[] = [];
  /** The last event a replay shows (null: every line, the game now). */
  private until: number | null = null;

  constructor(
    /** An event in words, given the label of the answer it names (if known). */
    private readonly words: (event: GameEvent, label: string | undefined) => string,
  ) {}

  /** Add ``events`` (newest first), each once; ``labelOf`` finds the label of an answer. */
  add(events: readonly GameEvent[], labelOf: (decision: string, option: string) => string | undefined): void {
    const fragment = document.createDocumentFragment();
    for (const event of events) {
      if (event.n <= this.lastEvent) continue;
      this.lastEvent = event.n;
      const data = event.data as Record<string, unknown>;
      const label = event.type === "answered" && typeof data.decision === "string" && typeof data.option === "string"
        ? labelOf(data.decision, data.option) : undefined;
      const item = h("li", { "data-n": event.n, class: event.private_to === null ? "" : "private" });
      const line = { item, event, label };
      this.draw(line);
      this.lines.push(line);
      fragment.prepend(item);
    }
    this.element.prepend(fragment);
  }

  /** A line of the page's own (not an event of the game): shown while not replaying. */
  note(text: string): void {
    const item = h("li", { class: "note" }, sentence(text));
    this.lines.push({ item, event: null, label: undefined });
    item.hidden = this.until !== null;
    this.element.prepend(item);
  }

  /** Word every line again (the seats' names changed). */
  reword(): void {
    for (const line of this.lines) if (line.event) this.draw(line);
  }

  /** Show the lines up to event ``n`` (a replay's moment), or all of them (``null``). */
  showUntil(n: number | null): void {
    if (n === this.until) return;
    this.until = n;
    for (const line of this.lines) {
      line.item.hidden = n !== null && (line.event === null || line.event.n > n);
    }
    this.element.scrollTop = 0; // newest first: the moment shown is at the top
  }

  private draw(line: Line): void {
    const event = line.event;
    if (!event) return;
    line.item.replaceChildren(sentence(this.words(event, line.label)));
    if (event.private_to !== null) line.item.append(h("span", { class: "muted" }, " " + t("(only you see this)")));
  }
}
