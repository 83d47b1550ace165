
// expected-error @+1 {{unknown mesh axis role 'model' (data, tensor, context, pipeline)}}
dist.mesh @m ["tp" = 2] roles [model]

