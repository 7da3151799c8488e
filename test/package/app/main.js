import { createEngine } from 'kairos-in-browser';

const engine = await createEngine(); // finds its worker, ONNX Runtime and the models next to itself
const photo = await (await fetch('face.jpg')).blob(); // or a File from <input type="file">

show('detect', await engine.detect({ image: photo }));

// the recogniser is downloaded only when a recognition call first needs it
document.querySelector('button').onclick = async () => {
  show('enroll', await engine.enroll({ image: photo, subject_id: 'ada', gallery_name: 'friends' }));
  show('recognize', await engine.recognize({ image: photo, gallery_name: 'friends' }));
};

function show(step, answer) {
  document.getElementById(step).textContent = JSON.stringify(answer);
}
