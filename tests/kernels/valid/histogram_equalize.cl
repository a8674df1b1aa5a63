// histogram_equalize.cl - the mapping phase of histogram equalization: the
// host has computed the cumulative histogram and the 256-entry lookup table;
// each work-item maps pixels through the __constant table (a gather from
// constant memory whose index is the varying pixel value).
//
// Launch: 1-D. equalize: global = round_up(n); ids >= n return.
//   equalize4: one item per 4 pixels, global = round_up(n4); ids >= n4
//   return.
// Arguments: equalize: in and out have n uchars; lut has 256 uchars.
//   equalize4: in and out have n4 uchar4; lut as above; strength in [0, 1]
//   blends the equalized value with the original.

__kernel void equalize(__global const uchar *in, __global uchar *out,
                       __constant uchar *lut, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        out[i] = lut[in[i]];  //~ access: out[i]=store:contiguous(1), in[i]=contiguous(1), lut[in[i]]=gather //~ warning[L0202]
}

__kernel void equalize4(__global const uchar4 *in, __global uchar4 *out,
                        __constant uchar *lut, float strength, int n4)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n4)  //~ branch: divergent
        return;

    uchar4 p = in[i];  //~ shape: varying
    uchar4 q = (uchar4)(lut[p.x], lut[p.y], lut[p.z], lut[p.w]);  //~ shape: varying //~ access: lut[p.x]=gather, lut[p.y]=gather, lut[p.z]=gather, lut[p.w]=gather //~ warning[L0202] warning[L0202] warning[L0202] warning[L0202]
    float4 blended = mix(convert_float4(p), convert_float4(q), strength);  //~ shape: varying
    out[i] = convert_uchar4_sat(blended + 0.5f);
}
