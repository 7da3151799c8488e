// @vladmandic/face-api with all its face models, as its README starts it, on its tfjs wasm
// backend (see peer-adapter.ts). Detector: SSD MobileNet v1 with default options.
// Imported as its published ESM file, not by package name: vite's dev server would pre-bundle
// it into a reformatted copy about 3× the size, and the cold start counts the bytes fetched.
import * as faceapi from '../../../node_modules/@vladmandic/face-api/dist/face-api.esm.js';
import { TFJS_WASM_PATH, letTfjsUseThreads, timedDecode, tfjsRuntime, type StartPeer, type TfjsWasm } from './peer-adapter.ts';

const MODELS = '/node_modules/@vladmandic/face-api/model';

export const start: StartPeer = async ({ threads, tfjsNativeThreads }) => {
  const tf = faceapi.tf as unknown as TfjsWasm;
  tf.setWasmPaths(TFJS_WASM_PATH);
  if (!tfjsNativeThreads) letTfjsUseThreads(threads);
  tf.setThreadsCount(threads);
  await tf.setBackend('wasm');
  await tf.ready();
  const nets = [faceapi.nets.ssdMobilenetv1, faceapi.nets.faceLandmark68Net, faceapi.nets.faceRecognitionNet, faceapi.nets.ageGenderNet, faceapi.nets.faceExpressionNet];
  await Promise.all(nets.map((net) => net.loadFromUri(MODELS)));
  // face-api takes images, videos, canvases or tensors, not an ImageBitmap: draw into a canvas
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  return {
    peer: 'faceapi',
    async detect(photo) {
      const started = performance.now();
      const { bitmap } = await timedDecode(photo);
      canvas.width = bitmap.width;
      canvas.height = bitmap.height;
      context.drawImage(bitmap, 0, 0);
      bitmap.close();
      // its decode: the bitmap and the draw into the canvas it reads
      const decodeMs = performance.now() - started;
      const faces = await faceapi
        .detectAllFaces(canvas, new faceapi.SsdMobilenetv1Options())
        .withFaceLandmarks()
        .withFaceExpressions()
        .withAgeAndGender()
        .withFaceDescriptors();
      return { faces: faces.length, decodeMs };
    },
    runtime: () => tfjsRuntime(tf, ['ssdMobilenetv1', 'faceLandmark68Net', 'faceRecognitionNet', 'ageGenderNet', 'faceExpressionNet']),
    close() {},
  };
};
