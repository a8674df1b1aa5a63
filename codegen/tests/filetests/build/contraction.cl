// test: build
// target: avx2-i32x8
// Multiply-add contraction reaches the machine: `a * x[i] + y[i]` is one
// `llvm.fma` per SIMD group; under `#pragma OPENCL FP_CONTRACT OFF` it
// stays a multiply and an add (no fast-math flags let LLVM fuse them).
kernel void saxpy(global float *y, global const float *x, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

#pragma OPENCL FP_CONTRACT OFF
kernel void saxpy_separate(global float *y, global const float *x, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
// check: @saxpy_groups(
// check: call <8 x float> @llvm.fma.v8f32(
// check: @saxpy_separate_groups(
// not: @llvm.fma
// check: $(p=%\d+) = fmul <8 x float>
// check: fadd <8 x float> $p,
// not: @llvm.fma
