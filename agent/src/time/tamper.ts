// A wall clock that moves against a clock nobody can set: the jump, once it is larger than the
// tolerance (DESIGN §14: 5 minutes). Pure; the caller decides, with the server's time, whether the
// jump was a child's doing or a correction.
export const CLOCK_TAMPER_TOLERANCE_MS = 5 * 60_000;

export class JumpDetector {
  private last: { wall: number; steady: number } | null = null;

  /** The jump in ms (positive: the wall clock went forward) since the last check, or null. */
  check(wall: number, steady: number): number | null {
    const last = this.last;
    this.last = { wall, steady };
    if (!last) return null;
    const jump = wall - last.wall - (steady - last.steady);
    return Math.abs(jump) > CLOCK_TAMPER_TOLERANCE_MS ? jump : null;
  }
}
