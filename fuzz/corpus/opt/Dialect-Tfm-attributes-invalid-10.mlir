
// expected-error @+1 {{'func.func' op 'dist.arena_bytes' must be a non-negative integer}}
func.func @f() attributes {dist.arena_bytes = -64} {
  return
}

