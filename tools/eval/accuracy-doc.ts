// docs/accuracy.md is shared: each eval writes only between its own markers, so sections
// written by other scripts (recognition, ...) and hand-written text survive.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { projectRoot } from '../harness/browser-session.ts';

export const ACCURACY_DOC = resolve(projectRoot, 'docs/accuracy.md');

export interface DocSection {
  /** marker name: the section lies between <!-- name:start --> and <!-- name:end --> */
  name: string;
  body: string;
}

/** Replaces each section's content; a section whose markers are missing is appended at the end. */
export function writeSections(sections: readonly DocSection[], doc = ACCURACY_DOC): void {
  let text = existsSync(doc) ? readFileSync(doc, 'utf8') : '# Accuracy\n';
  for (const { name, body } of sections) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const from = text.indexOf(start);
    const to = from < 0 ? -1 : text.indexOf(end, from);
    if (from < 0 && text.includes(end)) throw new Error(`${doc}: ${end} without ${start}; fix the markers by hand`);
    if (from >= 0 && to < 0) throw new Error(`${doc}: ${start} without ${end}; fix the markers by hand`);
    text =
      from < 0
        ? `${text.replace(/\n*$/, '\n')}\n${start}\n${body}\n${end}\n`
        : `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
  }
  writeFileSync(doc, text);
}
