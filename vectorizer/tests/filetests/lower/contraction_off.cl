// test: lower
// `#pragma OPENCL FP_CONTRACT OFF` keeps the multiply and the add, and a
// product stored to a variable is never fused with a later add.
#pragma OPENCL FP_CONTRACT OFF
kernel void saxpy(global float *y, global const float *x, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
#pragma OPENCL FP_CONTRACT ON
kernel void two_statements(global float *y, global const float *x, float a) {
    size_t i = get_global_id(0);
    float p = a * x[i];
    y[i] = p + y[i];
}
// check: kernel @saxpy
// check: fmul f32
// check: fadd f32
// check: kernel @two_statements
// check: fmul f32
// check: fadd f32
// not: fma
