// The reference web client of darkroad, served by `darkroad serve` at /play (see docs/play.md).
import { fill, h } from "./dom";
import { choose, language, LANGUAGES, t, type Language } from "./i18n";
import { setupPage } from "./setup";
import { tablePage } from "./table";

/** The page's frame in its language: the skip link, the help link (the guide in the same
 * language) and the language switch, on every page of /play (setup, lobby, table, replay). */
function frame(): void {
  document.documentElement.lang = language;
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("Skip to the decision");
  const help = document.querySelector<HTMLElement>("nav.help");
  if (!help) return;
  help.setAttribute("aria-label", t("Help and language"));
  const guide = help.querySelector("a");
  if (guide) {
    guide.textContent = t("How to play");
    guide.setAttribute("href", `/play/how-to-play?lang=${language}`);
  }
  const select = h("select", { id: "language", onchange: (event: Event) => choose((event.target as HTMLSelectElement).value as Language) },
    ...Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, lang: code, selected: code === language }, name)));
  help.append(" · ", h("label", { for: "language", class: "language" }, t("Language"), " "), select);
  const loading = document.querySelector("#app > p");
  if (loading) loading.textContent = t("Loading the table…");
}

/** "Skip to the decision" focuses it without touching the URL's fragment (a seat's token). */
function skipLink(): void {
  document.querySelector(".skip")?.addEventListener("click", (event) => {
    event.preventDefault();
    document.querySelector<HTMLElement>("#decision h2, form input")?.focus();
  });
}

async function main(): Promise<void> {
  const root = document.getElementById("app");
  if (!root) return;
  frame();
  skipLink();
  const match = /^\/play\/([A-Za-z0-9_-]+)\/?$/.exec(window.location.pathname);
  try {
    if (match?.[1]) await tablePage(root, match[1]);
    else await setupPage(root);
  } catch (error) {
    fill(root,
      h("h1", null, "darkroad"),
      h("p", { class: "message", role: "alert" }, error instanceof Error ? error.message : String(error)),
      h("p", null, h("a", { href: "/play" }, t("Set up a new game"))));
    root.dataset.state = "error";
  }
}

void main();
