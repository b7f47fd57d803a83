/**
 * What a label value is called on a page. e-mission's label options carry their names per language under
 * `translations` (`{"en": {"walk": "Walk"}}`, shared by modes and purposes); a value they do not name (a custom
 * label, a document without translations) is spelled out from the value itself, as the app does.
 */

const UNLABELED = 'UNLABELED';

function translations(labelOptions: unknown): Record<string, unknown> {
  const byLanguage = (labelOptions as { translations?: unknown } | null | undefined)?.translations;
  const english = (byLanguage as { en?: unknown } | null | undefined)?.en;
  return english !== null && typeof english === 'object' ? (english as Record<string, unknown>) : {};
}

/** `e-bike` → `E-bike`, `drove_alone` → `Drove alone`. */
function spelledOut(value: string): string {
  const words = value.replace(/_+/g, ' ').trim() || value;
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The English name of each value given, in the order given. */
export function labelNames(values: Iterable<string>, labelOptions: unknown): { value: string; name: string }[] {
  const named = translations(labelOptions);
  return [...values].map((value) => {
    const translated = Object.hasOwn(named, value) ? named[value] : undefined;
    const name = value === UNLABELED ? 'Not labelled' : typeof translated === 'string' ? translated : spelledOut(value);
    return { value, name };
  });
}
