// The reference web client of darkroad, served by `darkroad serve` at /play (see docs/play.md).
import { fill, h } from "./dom";
import { setupPage } from "./setup";
import { tablePage } from "./table";

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
  skipLink();
  const match = /^\/play\/([A-Za-z0-9_-]+)\/?$/.exec(window.location.pathname);
  try {
    if (match?.[1]) await tablePage(root, match[1]);
    else await setupPage(root);
  } catch (error) {
    fill(root,
      h("h1", null, "darkroad"),
      h("p", { class: "message", role: "alert" }, error instanceof Error ? error.message : String(error)),
      h("p", null, h("a", { href: "/play" }, "Set up a new game")));
    root.dataset.state = "error";
  }
}

void main();
