
// One more on each axis, 3037000500^2, is past 2^63 - 1.
// expected-error @+1 {{'dist.mesh' op size (the product of its axis sizes 3037000500 * 3037000500) overflows int64}}
dist.mesh @mesh ["dp" = 3037000500, "tp" = 3037000500]

