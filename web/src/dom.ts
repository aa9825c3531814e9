// A few lines of DOM building: h("p", { class: "x", onclick: f }, "text", child, [more]).

export type Child = Node | string | number | null | undefined | false | Child[];
type Value = string | number | boolean | null | undefined | ((event: Event) => void);
export type Attrs = Record<string, Value>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === "function") element.addEventListener(name.slice(2), value);
      else element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of ``parent``. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Make ``parent``'s children those given, as :func:`fill` does, but keep every node already
 * equal to its new one and change the others in place (attributes, text), so that a part of
 * the table an update leaves as it was is not laid out, painted and rasterised again. Every
 * update used to rebuild the whole table (the commit message has what that cost). Only for children without event listeners: a node
 * kept keeps its own (none). */
export function patch(parent: Element, ...children: Child[]): void {
  const next = document.createDocumentFragment();
  append(next, children);
  morph(parent, next);
}

function morph(old: Node, next: Node): void {
  const olds = Array.from(old.childNodes);
  const news = Array.from(next.childNodes);
  news.forEach((fresh, i) => {
    const kept = olds[i];
    if (!kept) old.appendChild(fresh);
    else if (kept.isEqualNode(fresh)) return;
    else if (kept instanceof Element && fresh instanceof Element && kept.nodeName === fresh.nodeName) {
      for (const { name } of Array.from(kept.attributes)) if (!fresh.hasAttribute(name)) kept.removeAttribute(name);
      for (const { name, value } of Array.from(fresh.attributes)) if (kept.getAttribute(name) !== value) kept.setAttribute(name, value);
      morph(kept, fresh);
    } else if (kept.nodeType === Node.TEXT_NODE && fresh.nodeType === Node.TEXT_NODE) kept.nodeValue = fresh.nodeValue;
    else old.replaceChild(fresh, kept);
  });
  for (const extra of olds.slice(news.length)) extra.remove();
}

/** ``items`` joined by ``separator`` (DOM children). */
export function joined(items: Child[], separator: Child = ", "): Child[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [separator, item]));
}
