// rgb_to_grey.cl - RGBA (uchar4) to grey level with the Rec. 601 luma
// weights, plus the inverse expansion of grey to RGBA with alpha 255.
//
// Launch: 1-D over pixels, global = round_up(npixels); ids >= npixels
//   return.
// Arguments: rgba has npixels uchar4, grey has npixels uchars.

__kernel void rgb_to_grey(__global const uchar4 *rgba, __global uchar *grey,
                          int npixels)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= npixels)  //~ branch: divergent
        return;

    float4 p = convert_float4(rgba[i]);
    float y = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;  //~ shape: varying
    grey[i] = convert_uchar_sat(y + 0.5f);  //~ access: grey[i]=store:contiguous(1)
}

__kernel void grey_to_rgba(__global const uchar *grey, __global uchar4 *rgba,
                           int npixels)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= npixels)  //~ branch: divergent
        return;

    uchar g = grey[i];  //~ shape: varying //~ access: grey[i]=contiguous(1)
    rgba[i] = (uchar4)(g, g, g, (uchar)255);
}
