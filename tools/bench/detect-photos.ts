// The /detect bench's photos (pure data: shared by the page and the Node report).

/** obama.jpg (910×1137) → a 4:3 region around the face (x 340–600, y 110–420) → 640×480 JPEG */
export const SINGLE_FACE = {
  source: 'faces/obama/obama.jpg',
  crop: { x: 0, y: 100, width: 910, height: 682.5 },
  width: 640,
  height: 480,
  quality: 0.9,
} as const;

export const GROUP = { source: 'groups/solvay1927.jpg', faces: 29 } as const;
