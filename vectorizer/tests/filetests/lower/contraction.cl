// test: lower
// A multiply feeding an add of the same expression is one fused
// multiply-add (OpenCL C's FP_CONTRACT is on by default), also as the
// subtrahend: `b - x * y` is `fma(-x, y, b)`.
kernel void saxpy(global float *y, global const float *x, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

kernel void residual(global float *r, global const float *b, global const float *ax) {
    size_t i = get_global_id(0);
    r[i] = b[i] - ax[i] * 0.5f;
}
// check: kernel @saxpy
// check: fma f32(%2, %
// not: fmul
// check: kernel @residual
// check: fneg f32
// check: fma f32(
// not: fmul
