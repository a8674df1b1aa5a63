// haar_wavelet.cl - one level of the 1-D Haar discrete wavelet transform:
// the first half of the output receives the (orthonormal) averages, the
// second half the details of each pair of neighbouring input samples.
// The host calls it again on out[0 .. half_len) for the next level.
//
// Launch: 1-D, one work-item per output pair: global = round_up(half_len);
//   ids >= half_len return.
// Arguments: in has 2 * half_len floats, out has 2 * half_len floats.
//
// The loads in[2i] and in[2i + 1] are strided (stride 2) across a SIMD group;
// the stores are contiguous.

__kernel void haar_dwt_level(__global const float *in, __global float *out,
                             uint half_len)
{
    uint i = get_global_id(0);  //~ shape: contiguous
    if (i >= half_len)  //~ branch: divergent
        return;

    float a = in[2 * i];  //~ shape: varying //~ access: in[2 * i]=strided(8) //~ warning[L0204]
    float b = in[2 * i + 1];  //~ shape: varying //~ access: in[2 * i + 1]=strided(8) //~ warning[L0204]
    out[i] = (a + b) * M_SQRT1_2_F;  //~ access: out[i]=store:contiguous
    out[half_len + i] = (a - b) * M_SQRT1_2_F;  //~ access: out[half_len + i]=store:contiguous
}
