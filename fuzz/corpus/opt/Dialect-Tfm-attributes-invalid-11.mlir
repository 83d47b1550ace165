
// Only ops whose kernel may need a workspace (WorkspaceOpInterface) carry
// its offset.
// expected-error @+1 {{'tfm.fill' op carries 'dist.workspace_offset', but its runtime kernel has no workspace to place}}
%0 = tfm.fill 0.0 {dist.workspace_offset = 0 : i64} : tensor<4xf32>

