
// Every op of the step needs a RuntimeLoweringOpInterface: a call to another
// function has none (tfm and dist ops have theirs; tfm.param and dist.mesh
// stay at module level).
func.func private @helper(tensor<4x1xi64>) -> tensor<f32>
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  // expected-error @+1 {{'func.call' op has no runtime lowering (it does not implement RuntimeLoweringOpInterface)}}
  %l = func.call @helper(%ids) : (tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
