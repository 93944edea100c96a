/**
 * What an entry's DOM alone knows and the virtual transcript must not lose when the entry scrolls out of
 * view and is rendered again later: which of its disclosures (`<details>`: a thought, a tool call's input,
 * an attached file) the user opened. Kept per entry id for the life of the view.
 */

const opened = new Map<string, Set<number>>();

function slotOf(element: Element): HTMLElement | null {
  return element.closest<HTMLElement>('[data-entry-id]');
}

/** A `toggle` event in the transcript (listened to in the capture phase: it does not bubble). */
export function rememberToggle(event: Event): void {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement)) return;
  const slot = slotOf(details);
  const id = slot?.dataset['entryId'];
  if (!slot || id === undefined) return;
  const index = [...slot.querySelectorAll('details')].indexOf(details);
  let set = opened.get(id);
  if (details.open) {
    if (!set) opened.set(id, (set = new Set()));
    set.add(index);
  } else if (set) {
    set.delete(index);
    if (set.size === 0) opened.delete(id);
  }
}

/** An entry rendered again: its disclosures open as the user left them. */
export function restoreToggles(slot: HTMLElement, id: string): void {
  const set = opened.get(id);
  if (!set) return;
  slot.querySelectorAll('details').forEach((details, index) => {
    if (set.has(index) && !details.open) details.open = true;
  });
}
