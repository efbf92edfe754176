/**
 * Runs per host ≤ its GPUs: each run takes as many GPU slots as its tensor-parallel size and waits
 * in FIFO order when they are taken. A GPU-less host (gpus: 0) runs `maxParallel` (default 1) at once.
 */
export class HostQueue {
  private readonly free: string[];
  private readonly waiting: Array<{ need: number; grant: (ids: string[]) => void; reject: (e: Error) => void }> = [];

  constructor(
    readonly gpus: number,
    maxParallel?: number,
  ) {
    // On a swarm `maxParallel` may exceed the GPUs (a run waiting in the swarm): ids are then only counted.
    const slots = gpus > 0 ? (maxParallel ?? gpus) : Math.max(1, maxParallel ?? 1);
    this.free = Array.from({ length: slots }, (_, i) => String(i));
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with the GPU ids granted ([] on a GPU-less host, which still takes a slot). */
  acquire(tensorParallel: number, signal?: AbortSignal): Promise<string[]> {
    const need = this.gpus > 0 ? Math.max(1, tensorParallel) : 1;
    return new Promise((resolve, reject) => {
      const entry = { need, grant: resolve, reject };
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) {
            this.waiting.splice(i, 1);
            reject(new Error('cancelled while queued'));
          }
        },
        { once: true },
      );
      this.waiting.push(entry);
      this.pump();
    });
  }

  release(ids: string[], tookSlot = true): void {
    if (this.gpus > 0) this.free.push(...ids);
    else if (tookSlot) this.free.push('0');
    this.pump();
  }

  private pump(): void {
    while (this.waiting.length && this.free.length >= this.waiting[0].need) {
      const w = this.waiting.shift()!;
      const ids = this.free.splice(0, w.need);
      w.grant(this.gpus > 0 ? ids : []);
    }
  }
}
