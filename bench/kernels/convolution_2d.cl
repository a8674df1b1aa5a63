// convolution_2d.cl - 2-D convolution with a square filter; samples outside
// the image are clamped to the nearest border pixel (clamp-to-edge).
//
// Launch: 2-D NDRange, dimension 0 over x (columns), dimension 1 over y
//   (rows): global = (round_up(width), round_up(height)); items outside the
//   image return.
// Arguments: input and output are width x height row-major float images;
//   filter is filterWidth x filterWidth row-major, filterWidth odd and >= 1.
//
// Both loops are uniform; input[sy * width + sx] is contiguous in the
// interior and a gather where the clamp takes effect.

__kernel void convolution_2d(__global const float *input,
                             __global float *output,
                             __global const float *filter,
                             int width, int height, int filterWidth)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    int r = (filterWidth - 1) / 2;
    float sum = 0.0f;
    for (int fy = 0; fy < filterWidth; fy++) {
        int sy = clamp(y + fy - r, 0, height - 1);
        for (int fx = 0; fx < filterWidth; fx++) {
            int sx = clamp(x + fx - r, 0, width - 1);
            sum += filter[fy * filterWidth + fx] * input[sy * width + sx];
        }
    }
    output[y * width + x] = sum;
}
