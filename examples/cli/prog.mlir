// The program of the README's CLI lines: x @ y + x for two 2x2 f32 matrices.
//   hhlo run examples/cli/prog.mlir -i x.npy -i y.npy -o out/
module @example {
  func.func public @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.add %0, %x : tensor<2x2xf32>
    return %1 : tensor<2x2xf32>
  }
}
