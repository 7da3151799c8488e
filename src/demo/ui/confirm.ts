// A modal yes/no question (native <dialog>: focus trapped, Escape cancels) for anything that
// deletes stored data.
import { button, h } from './dom.ts';

export function confirmAction(question: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { 'aria-labelledby': 'confirm-question', class: 'confirm' });
    const finish = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    const cancel = button('Cancel', () => finish(false));
    dialog.append(
      h('p', { id: 'confirm-question', text: question }),
      h('div', { class: 'row' }, button(confirmLabel, () => finish(true), { class: 'danger' }), cancel),
    );
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus(); // the safe choice is the default
  });
}
