// L0001: missing semicolons. A missing `;` is reported at the end of the
// token before it, so on the line that lacks it, not on the next one.

__kernel void scale(__global float *x, float s, int n)
{
    int i = get_global_id(0)    //~ error[L0001]
    if (i >= n)
        return;
    float v = x[i] * s          //~ error[L0001]
    x[i] = v;
    x[i] += 1.0f                //~ error[L0001]
}

struct Range {
    int lo;
    int hi
};                              //~^ error[L0001]

__kernel void after_struct(__global int *out, struct Range r)
{
    int i = get_global_id(0);
    out[i] = clamp(i, r.lo, r.hi);
}
