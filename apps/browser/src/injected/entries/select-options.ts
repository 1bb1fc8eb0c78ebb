/** Run on an element: a select's options as [value, label], or null for anything that is not a select. */
export default function selectOptions(el: Element): [value: string, label: string][] | null {
  return el instanceof HTMLSelectElement ? Array.from(el.options).map((o) => [o.value, o.label]) : null;
}
