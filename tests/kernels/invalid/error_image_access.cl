// Images used against their access qualifier or with the wrong
// coordinates: no overload of the image built-ins matches (clang: "no
// matching function for call to 'read_imagef'").
//
// Launch: 2-D over the image, global = (width, height).

__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

__kernel void copy_image(__read_only image2d_t src,
                         __write_only image2d_t dst,
                         __read_write image2d_t tmp)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float4 c = read_imagef(dst, smp, (int2)(x, y));          //~ error[L0007]
    write_imagef(src, (int2)(x, y), c);                      //~ error[L0007]
    float4 t = read_imagef(tmp, smp, (int2)(x, y));          //~ error[L0007]
    float4 u = read_imagef(src, (float2)(x, y));             //~ error[L0007]
    float4 v = read_imagef(src, smp, (int4)(x, y, 0, 0));    //~ error[L0007]
    int d = get_image_depth(src);                            //~ error[L0007]
    write_imagef(dst, (int2)(x, y), c + t + u + v + (float)d);
}
