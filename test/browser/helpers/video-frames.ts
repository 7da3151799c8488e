// A video file as a VideoFrame async iterator (what engine.watch takes from WebCodecs or a
// camera), decoded by seeking a <video> at a fixed rate: frame-exact and deterministic.
export async function* videoFrames(url: string, fps: number, fromS = 0, toS = Infinity): AsyncGenerator<VideoFrame> {
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'auto';
  const seeked = () => new Promise<void>((resolve, reject) => {
    video.addEventListener('seeked', () => resolve(), { once: true });
    video.addEventListener('error', () => reject(new Error(`cannot decode ${url}`)), { once: true });
  });
  const loaded = new Promise<void>((resolve) => video.addEventListener('loadeddata', () => resolve(), { once: true }));
  video.src = url;
  await loaded;
  try {
    const end = Math.min(toS, video.duration);
    for (let k = 0; ; k++) {
      const t = fromS + k / fps;
      if (t >= end - 1e-3) break;
      const s = seeked();
      // 'seeked' can come before the new frame is the element's current one on a loaded
      // machine: wait for the frame callback too (bounded, it may not fire for an unchanged frame)
      const shown = new Promise<void>((resolve) => {
        video.requestVideoFrameCallback(() => resolve());
        setTimeout(resolve, 250);
      });
      video.currentTime = t + 0.0005;
      await s;
      await shown;
      yield new VideoFrame(video, { timestamp: Math.round(t * 1e6) });
    }
  } finally {
    video.removeAttribute('src');
    video.load();
  }
}
