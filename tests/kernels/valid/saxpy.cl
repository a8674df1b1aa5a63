// saxpy.cl - single-precision a * x + y, in place: y[i] = a * x[i] + y[i].
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: x and y have n floats.

__kernel void saxpy(int n, float a, __global const float *x, __global float *y)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        y[i] = a * x[i] + y[i];  //~ access: y[i]=store:contiguous, x[i]=contiguous, y[i]=load:contiguous
}
