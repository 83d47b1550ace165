
// Returning a partial loss.
dist.mesh @mesh ["tp" = 2]
func.func @return_partial(%l: tensor<f32, #dist.layout<@mesh, tp = P>>) -> tensor<f32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'func.return' op returns value #0 that is P on mesh axis 'tp'; a function result must be whole on every rank}}
  return %l : tensor<f32, #dist.layout<@mesh, tp = P>>
}

