
// Axis sizes that wrap to a small positive number (2^32 * 2^32 * 2 = 2^65,
// 0 mod 2^64) are an overflow too.
// expected-error @+1 {{'dist.mesh' op size (the product of its axis sizes 4294967296 * 4294967296 * 2) overflows int64}}
dist.mesh @mesh ["dp" = 4294967296, "tp" = 4294967296, "pp" = 2]

