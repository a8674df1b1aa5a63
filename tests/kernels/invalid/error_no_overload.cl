// L0007: built-in functions called with argument types that match none of
// their overloads.

__kernel void builtins(__global int *a, __global float *f, __global int4 *v,
                       __global float4 *f4, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int d = dot(a[i], a[i]);                   //~ error[L0007]
    uint p = popcount(f[i]);                   //~ error[L0007]
    float r = rotate(f[i], 2.0f);              //~ error[L0007]
    float l = length(v[i]);                    //~ error[L0007]
    float4 s = select(f4[i], f4[i], f4[i]);    //~ error[L0007]
    float m = mix(a[i], a[i], a[i]);           //~ error[L0007]
    f[i] = (float)d + (float)p + r + l + s.x + m;
}
