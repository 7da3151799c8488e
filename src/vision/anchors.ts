// SSD anchor grids of the BlazeFace-family detectors (pure).
import type { Point } from './geometry.ts';

export interface AnchorSpec {
  /** input side in pixels */
  inputSize: number;
  /** one entry per feature map: its stride and how many anchors each cell holds */
  layers: { stride: number; anchorsPerCell: number }[];
}

/** Anchor centres in input pixels, in the order the detector's outputs list them. */
export function generateAnchors(spec: AnchorSpec): Point[] {
  return anchorsForInput(spec.layers, spec.inputSize, spec.inputSize);
}

/** The same grids for a fully convolutional run on a width × height input. */
export function anchorsForInput(layers: AnchorSpec['layers'], width: number, height: number): Point[] {
  const anchors: Point[] = [];
  for (const { stride, anchorsPerCell } of layers) {
    const columns = Math.ceil(width / stride);
    const rows = Math.ceil(height / stride);
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < columns; x++) {
        for (let n = 0; n < anchorsPerCell; n++) anchors.push({ x: (x + 0.5) * stride, y: (y + 0.5) * stride });
      }
    }
  }
  return anchors;
}
