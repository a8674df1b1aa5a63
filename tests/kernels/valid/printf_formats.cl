// printf_formats.cl - printf for debugging, as SDK samples print intermediate
// values: integers, floats (promoted to double), vectors with OpenCL's `vN`
// specifier and a `%s` string. `lanes check` analyses the call like any other
// (its arguments have shapes); `lanes run --interpret` prints the output of
// each work-item in launch order; `lanes build` refuses the kernel (L0905).
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: x has n floats, v has n float4, out has n floats.

__kernel void trace_values(__global const float *x, __global const float4 *v,
                           __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;
    float s = x[i] * 2.0f;
    printf("item %d of %u: x=%.3f\n", i, (uint)n, x[i]);
    if (s < 0.0f)
        printf("%s: %v4hlf\n", "negative", v[i]);
    printf("%5.1e|%-4ld|%#x\n", s, (long)i * 3, i);
    out[i] = s;
}
