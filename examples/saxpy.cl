// saxpy.cl - y = a * x + y, the "hello world" of data-parallel kernels.
//
// Launch: a 1-D NDRange with one work-item per element; the global size may
// be rounded up, the extra work-items do nothing.
//   x, y   n floats each; y is updated in place
//
// Under lanes, i is contiguous, so x[i] and y[i] become packed vector loads
// and y[i] a packed vector store. The `if (i < n)` guard is only false in
// the last, partial SIMD group, which runs masked; every other group runs
// without masks.

__kernel void saxpy(int n, float a, __global const float *x, __global float *y)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        y[i] = a * x[i] + y[i];  //~ access: y[i]=store:contiguous, x[i]=contiguous, y[i]=load:contiguous
}
