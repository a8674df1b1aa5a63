// box_blur.cl - a (2r + 1) x (2r + 1) box blur of an RGBA image stored as a
// buffer of uchar4, sampling with clamp-to-edge at the borders and
// averaging in float.
//
// Launch: 2-D NDRange, dimension 0 over x, dimension 1 over y:
//   global = (round_up(width), round_up(height)); items outside return.
// Arguments: src and dst are width x height row-major uchar4 images
//   (width, height >= 1); 0 <= r <= 16.

__kernel void box_blur(__global const uchar4 *src, __global uchar4 *dst,
                       int width, int height, int r)
{
    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    if (x >= width || y >= height)
        return;

    float4 acc = (float4)(0.0f);  //~ shape: varying
    for (int dy = -r; dy <= r; dy++) {  //~ shape: uniform //~ loop: uniform
        int sy = min(max(y + dy, 0), height - 1);  //~ shape: uniform
        for (int dx = -r; dx <= r; dx++) {  //~ shape: uniform //~ loop: uniform
            int sx = min(max(x + dx, 0), width - 1);  //~ shape: varying
            acc += convert_float4(src[sy * width + sx]);  //~ access: src[sy * width + sx]=gather //~ warning[L0202]
        }
    }
    float inv = 1.0f / (float)((2 * r + 1) * (2 * r + 1));  //~ shape: uniform
    dst[y * width + x] = convert_uchar4_sat(acc * inv + 0.5f);
}
