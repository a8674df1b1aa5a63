// sobel.cl - Sobel edge detection on a grey-level float image: the gradient
// magnitude sqrt(gx^2 + gy^2) of the 3x3 Sobel operators. Border pixels
// have no full neighbourhood and get 0.
//
// Launch: 2-D NDRange, dimension 0 over x, dimension 1 over y:
//   global = (round_up(width), round_up(height)); items outside return.
// Arguments: in and out are width x height row-major float images,
//   width, height >= 1.

__kernel void sobel(__global const float *in, __global float *out,
                    int width, int height)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    int idx = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[idx] = 0.0f;
        return;
    }

    float p00 = in[idx - width - 1], p01 = in[idx - width], p02 = in[idx - width + 1];
    float p10 = in[idx - 1],                                p12 = in[idx + 1];
    float p20 = in[idx + width - 1], p21 = in[idx + width], p22 = in[idx + width + 1];

    float gx = (p02 + 2.0f * p12 + p22) - (p00 + 2.0f * p10 + p20);
    float gy = (p20 + 2.0f * p21 + p22) - (p00 + 2.0f * p01 + p02);
    out[idx] = sqrt(gx * gx + gy * gy);
}
