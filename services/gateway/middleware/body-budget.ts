/**
 * Body bytes the gateway holds at once, across requests. A request reserves its bytes as they arrive and
 * releases them when its answer is sent; a reservation beyond the budget is refused, so many large or slow
 * bodies together cannot exhaust memory.
 */
export class BodyBudget {
  #held = 0;

  constructor(readonly limitBytes: number) {}

  get heldBytes(): number {
    return this.#held;
  }

  get freeBytes(): number {
    return this.limitBytes - this.#held;
  }

  /** Takes `bytes` out of the budget if they fit; false (and nothing taken) if they do not. */
  tryReserve(bytes: number): boolean {
    if (bytes < 0 || this.#held + bytes > this.limitBytes) return false;
    this.#held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}
