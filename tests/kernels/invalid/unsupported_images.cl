// L0904: images and samplers are not supported yet: an image parameter, a
// sampler parameter, and the read_imagef built-in. Otherwise valid OpenCL
// C; the arguments of the unsupported call are not analysed further.
//
// Launch: 2-D over the image, global = (round_up(width), round_up(height)).

__kernel void copy_image(__read_only image2d_t img,         //~ error[L0904]
                         sampler_t smp,                     //~ error[L0904]
                         __global float4 *out, int width, int height)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    float4 c = read_imagef(img, smp, (int2)(x, y));         //~ error[L0904]
    out[y * width + x] = c;
}
