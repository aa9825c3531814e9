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

/** ``items`` joined by ``separator`` (DOM children). */
export function joined(items: Child[], separator: Child = ", "): Child[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [separator, item]));
}
