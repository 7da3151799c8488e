// The page's screens as an accessible tab list (arrow keys move between tabs), kept in the
// URL hash so each screen has an address (#detect, #galleries, #emotion, #developer).

export interface Tab {
  id: string;
  button: HTMLButtonElement;
  panel: HTMLElement;
}

export function setupTabs(list: HTMLElement, onShow: (id: string) => void = () => {}): { show(id: string): void } {
  const tabs: Tab[] = [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]')].map((button) => ({
    id: button.dataset.tab!,
    button,
    panel: document.getElementById(button.getAttribute('aria-controls')!)!,
  }));

  const show = (id: string, focus = false) => {
    const target = tabs.find((t) => t.id === id) ?? tabs[0]!;
    for (const t of tabs) {
      const selected = t === target;
      t.button.setAttribute('aria-selected', String(selected));
      t.button.tabIndex = selected ? 0 : -1;
      t.panel.hidden = !selected;
    }
    if (focus) target.button.focus();
    if (location.hash !== `#${target.id}`) history.replaceState(null, '', `#${target.id}`);
    onShow(target.id);
  };

  for (const [i, t] of tabs.entries()) {
    t.button.addEventListener('click', () => show(t.id));
    t.button.addEventListener('keydown', (e) => {
      const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
      if (e.key === 'Home') show(tabs[0]!.id, true);
      else if (e.key === 'End') show(tabs.at(-1)!.id, true);
      else if (step) show(tabs[(i + step + tabs.length) % tabs.length]!.id, true);
    });
  }
  window.addEventListener('hashchange', () => show(location.hash.slice(1)));
  show(location.hash.slice(1));
  return { show: (id) => show(id) };
}
