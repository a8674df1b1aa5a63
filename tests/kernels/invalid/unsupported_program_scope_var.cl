// L0910: program-scope variables outside __constant are not supported (an
// OpenCL C 2.0 feature). Each such declaration is reported; uses are not.
// Otherwise valid OpenCL C 2.0: the variables are only read.
//
// Launch: 1-D, global = round_up(n).

__global float gain = 2.0f;                         //~ error[L0910]
__global float bias[4] = { 0.0f, 0.5f, 1.0f, 1.5f }; //~ error[L0910]
__constant float fine_because_constant = 3.0f;

__kernel void affine(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = x[i] * gain + bias[i & 3] + fine_because_constant;
}
