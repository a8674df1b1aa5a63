// clang's rules for __local variables: only in the outermost scope of a
// kernel (one object per work-group), never in a helper function, and
// without an initializer. Each error is at the variable's name.

void accumulate(__global float *out)
{
    __local float partial[16];                      //~ error[L0016]
    out[0] = partial[0];
}

__kernel void tiles(__global float *out)
{
    __local int count = 0;                          //~ error[L0016]
    for (int k = 0; k < 4; k++) {
        __local float tile[64];                     //~ error[L0016]
        tile[get_local_id(0)] = (float)k;
        out[get_global_id(0)] += tile[get_local_id(0)];
    }
    accumulate(out);
    out[0] += (float)count;
}
