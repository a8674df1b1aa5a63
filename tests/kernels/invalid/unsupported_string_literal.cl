// L0918: string literals are not supported outside printf: a __constant
// char array initialized from a string, and a string literal indexed in an
// expression. Otherwise valid OpenCL C.
//
// Launch: 1-D, global = round_up(n).

__constant char alphabet[] = "ACGT";                //~ error[L0918]

__kernel void decode_bases(__global const uchar *codes, __global char *out,
                           __global char *out_lower, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = alphabet[codes[i] & 3];
    out_lower[i] = "acgt"[codes[i] & 3];            //~ error[L0918]
}
