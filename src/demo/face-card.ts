// A card describing one detected face. Text only through textContent: nothing from a
// response is ever parsed as HTML.
import type { DetectFace } from '../index.ts';

function row(list: HTMLElement, term: string, value: string, fraction?: number): void {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  if (fraction !== undefined) {
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.round(fraction * 6)}rem`;
    dd.append(bar);
  }
  dd.append(value);
  list.append(dt, dd);
}

export function faceCard(f: DetectFace): HTMLLIElement {
  const li = document.createElement('li');
  li.className = 'face-card';
  const h = document.createElement('h3');
  h.textContent = `Face ${f.face_id}`;
  const dl = document.createElement('dl');
  const a = f.attributes;
  row(dl, 'Age', String(a.age));
  row(dl, 'Gender', `${a.gender.type === 'M' ? 'male' : 'female'} (${Math.round(Math.max(a.gender.maleConfidence, a.gender.femaleConfidence) * 100)}%)`);
  for (const k of ['asian', 'black', 'hispanic', 'white', 'other'] as const) row(dl, k, `${Math.round(a[k] * 100)}%`, a[k]);
  row(dl, 'Pose', `yaw ${f.yaw}°, pitch ${f.pitch}°, roll ${f.roll}°`);
  row(dl, 'Quality', f.quality.toFixed(2), f.quality);
  row(dl, 'Confidence', f.confidence.toFixed(2), f.confidence);
  if (a.lips) row(dl, 'Lips', a.lips);
  if (a.liveness !== undefined) row(dl, 'Liveness', a.liveness.toFixed(2), a.liveness);
  li.append(h, dl);
  return li;
}
