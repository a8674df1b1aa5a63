// test: lower
// fma: off
// A target without fused multiply-add (SSE4) gets a multiply and an add,
// never a call standing in for the instruction.
kernel void saxpy(global float *y, global const float *x, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
// check: fmul f32
// check: fadd f32
// not: fma
