
// The loss gradient must be whole on every rank.
dist.mesh @mesh ["tp" = 2]
func.func @ce_grad_partial(%logits: tensor<4x1x16xf32>, %labels: tensor<4x1xi64>,
                           %dl: tensor<f32, #dist.layout<@mesh, tp = P>>) -> tensor<4x1x16xf32> {
  // expected-error @+1 {{'tfm.cross_entropy_grad' op operand #2 is P on mesh axis 'tp': the loss gradient must be whole}}
  %d = tfm.cross_entropy_grad %logits, %labels, %dl ignore_index -100 : (tensor<4x1x16xf32>, tensor<4x1xi64>, tensor<f32, #dist.layout<@mesh, tp = P>>) -> tensor<4x1x16xf32>
  return %d : tensor<4x1x16xf32>
}
