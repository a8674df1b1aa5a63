/*
 * image_filter_sampler.cl - image filters through the OpenCL image API:
 * a 3x3 Gaussian blur reading an RGBA float image with a program-scope
 * sampler (unnormalised integer coordinates, clamp to edge, nearest), and
 * a bilinear resize reading with normalised coordinates and a linear
 * filter through a sampler passed as an argument.
 *
 * Launch: 2-D, global = (width, height) of the destination image, any
 *   local size; items outside the image return.
 * Arguments: src is a read-only RGBA image (CL_FLOAT or CL_UNORM_INT8
 *   channels), dst a write-only image of the same format;
 *   gaussian_blur: width and height are those of both images;
 *   resize_bilinear: dst_width and dst_height of dst, the sampler has
 *   CLK_NORMALIZED_COORDS_TRUE and CLK_FILTER_LINEAR.
 * No run spec: the launch-spec syntax has no image arguments.
 */

__constant sampler_t nearest_clamp = CLK_NORMALIZED_COORDS_FALSE |
                                     CLK_ADDRESS_CLAMP_TO_EDGE |
                                     CLK_FILTER_NEAREST;

__constant float gauss3[3][3] = {
    {0.0625f, 0.125f, 0.0625f},
    {0.125f, 0.25f, 0.125f},
    {0.0625f, 0.125f, 0.0625f},
};

__kernel void gaussian_blur(__read_only image2d_t src,
                            __write_only image2d_t dst,
                            int width, int height)
{
    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    if (x >= width || y >= height)
        return;

    float4 sum = (float4)(0.0f);
    for (int dy = -1; dy <= 1; dy++) {  //~ loop: uniform
        for (int dx = -1; dx <= 1; dx++) {  //~ loop: uniform
            int2 coord = (int2)(x + dx, y + dy);  //~ shape: varying
            sum += gauss3[dy + 1][dx + 1] * read_imagef(src, nearest_clamp, coord);  //~ access: read_imagef(src, nearest_clamp, coord)=contiguous, gauss3[dy + 1][dx + 1]=uniform
        }
    }
    write_imagef(dst, (int2)(x, y), sum);  //~ access: write_imagef(dst, (int2)(x, y), sum)=store:contiguous
}

__kernel void resize_bilinear(__read_only image2d_t src,
                              __write_only image2d_t dst,
                              sampler_t linear, int dst_width, int dst_height)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= dst_width || y >= dst_height)
        return;

    // Centre of the destination pixel in normalised coordinates.
    float2 uv = (float2)((x + 0.5f) / dst_width, (y + 0.5f) / dst_height);  //~ shape: varying
    float4 colour = read_imagef(src, linear, uv);  //~ access: read_imagef(src, linear, uv)=gather //~ warning[L0202]
    write_imagef(dst, (int2)(x, y), clamp(colour, 0.0f, 1.0f));  //~ access: write_imagef(dst, (int2)(x, y), clamp(colour, 0.0f, 1.0f))=store:contiguous
}
