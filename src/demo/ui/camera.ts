// The webcam, shared by every section: one stream at a time, stopped when nobody shows it.
// Snapshots are JPEG files like any photo the user could pick.

export class Camera {
  private stream: MediaStream | undefined;
  private video: HTMLVideoElement | undefined;
  private readonly stopListeners = new Set<() => void>();

  /** Called whenever the camera stops (a screen's camera UI resets itself). */
  onStop(listener: () => void): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  get active(): boolean {
    return this.stream !== undefined;
  }

  /** The live stream (for recording), once started. */
  get mediaStream(): MediaStream | undefined {
    return this.stream;
  }

  /** Starts the camera into `video` (taking it over from another element if running). */
  async start(video: HTMLVideoElement): Promise<void> {
    if (this.video && this.video !== video) this.video.srcObject = null;
    this.stream ??= await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
    this.video = video;
    video.muted = true;
    video.playsInline = true;
    video.srcObject = this.stream;
    await video.play();
    if (video.videoWidth === 0) await new Promise((resolve) => video.addEventListener('loadedmetadata', resolve, { once: true }));
  }

  stop(): void {
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    if (this.video) this.video.srcObject = null;
    const wasRunning = this.stream !== undefined;
    this.stream = undefined;
    this.video = undefined;
    if (wasRunning) for (const listener of this.stopListeners) listener();
  }

  /** The current frame as a JPEG file. */
  async snapshot(): Promise<File> {
    const video = this.video;
    if (!video || !this.stream) throw new Error('the camera is not running');
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext('2d')!.drawImage(video, 0, 0);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
    if (!blob) throw new Error('the camera frame could not be encoded');
    const stamp = new Date().toISOString().slice(11, 19).replaceAll(':', '');
    return new File([blob], `webcam-${stamp}.jpg`, { type: 'image/jpeg' });
  }
}
