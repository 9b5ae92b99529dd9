// Small statistics shared by the benchmarks.

/** The median of `xs` (the lower middle one for an even count: a figure that was measured, not an average of two). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
