// The web client's words in the reader's language: English in the source, translated from the
// client's own gettext catalog (web/locale/<language>/LC_MESSAGES/darkroad_web.po, kept with the
// server's by scripts/i18n.py and checked complete by tests/test_i18n.py), compiled into
// messages.json, which the bundle carries. Messages are whole sentences with the server's named
// placeholders ("Round %(round)s of 13"), never pieces glued together, never template literals
// (the extractor cannot read them). The language is the browser's (navigator.languages), or the
// one chosen with the switch on every page (remembered in localStorage); the API is asked in it
// too (Accept-Language), so its labels, prompts, names and problems match the page.
import messages from "./messages.json";

export const LANGUAGES = { en: "English", hu: "Magyar" } as const;
export type Language = keyof typeof LANGUAGES;
const SOURCE: Language = "en";
const KEY = "darkroad.language";

type Params = Record<string, string | number>;
type Catalog = Record<string, string | string[]>;
const CATALOGS = messages as Record<string, Catalog>;
/** The plural form of ``n`` in each language (the catalogs' Plural-Forms). */
const PLURAL: Record<Language, (n: number) => number> = { en: (n) => (n === 1 ? 0 : 1), hu: (n) => (n === 1 ? 0 : 1) };

function isLanguage(value: string | null | undefined): value is Language {
  return typeof value === "string" && Object.hasOwn(LANGUAGES, value);
}

/** The first of the browser's languages darkroad speaks (``hu-HU`` is ``hu``), else English. */
export function negotiate(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split("-")[0];
    if (isLanguage(primary)) return primary;
  }
  return SOURCE;
}

function remembered(): Language | null {
  try {
    const value = window.localStorage.getItem(KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null; // storage refused (a private window): the browser's language
  }
}

/** The language of this page: the one chosen with the switch, else the browser's. */
export const language: Language = remembered() ?? negotiate(navigator.languages ?? [navigator.language]);

function format(text: string, params?: Params): string {
  if (!params) return text;
  return text.replace(/%\((\w+)\)[sd]/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** ``message`` in the page's language, its ``%(name)s`` placeholders filled from ``params``. */
export function t(message: string, params?: Params): string {
  const found = CATALOGS[language]?.[message];
  return format(typeof found === "string" && found ? found : message, params);
}

/** The plural form of the page's language for ``n`` (``%(num)d`` is ``n``). */
export function tn(singular: string, plural: string, n: number, params?: Params): string {
  const forms = CATALOGS[language]?.[singular];
  const form = Array.isArray(forms) ? forms[PLURAL[language](n)] : undefined;
  return format(form || (n === 1 ? singular : plural), { num: n, ...params });
}

/** Choose ``chosen`` for every page of /play from now on (the page is loaded again in it). */
export function choose(chosen: Language): void {
  try {
    window.localStorage.setItem(KEY, chosen);
  } catch {
    // not remembered: this page only
  }
  if (chosen !== language) window.location.reload();
}
