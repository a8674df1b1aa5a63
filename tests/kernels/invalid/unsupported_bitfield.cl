// L0916: bit-fields are not supported (OpenCL C forbids them; clang accepts
// them with __cl_clang_bitfields). Every bit-field member is reported.
//
// Launch: 1-D, global = round_up(n).

typedef struct {
    uint blue : 5;                                  //~ error[L0916]
    uint green : 6;                                 //~ error[L0916]
    uint red : 5;                                   //~ error[L0916]
} Rgb565;

__kernel void unpack565(__global const ushort *in, __global uchar4 *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    uint v = in[i];
    Rgb565 c;
    c.blue = v & 31u;
    c.green = (v >> 5) & 63u;
    c.red = (v >> 11) & 31u;
    out[i] = (uchar4)((uchar)(c.red << 3), (uchar)(c.green << 2), (uchar)(c.blue << 3), (uchar)255);
}
