// The reference web client of darkroad, served by `darkroad serve` at /play (see docs/play.md).
import { fill, h } from "./dom";
import { setupPage } from "./setup";
import { tablePage } from "./table";

async function main(): Promise<void> {
  const root = document.getElementById("app");
  if (!root) return;
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
