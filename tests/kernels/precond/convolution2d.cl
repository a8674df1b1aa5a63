// convolution2d.cl - Convolution2D of the paper (Moll, "Synthesizing Hot Code
// Paths by Abductive Reasoning", Table I): a 2-D convolution with a
// (2r+1) x (2r+1) mask whose loop bounds are clamped at the image border, so
// border pixels sum over fewer samples (zero padding, as the AMD APP SDK's
// SimpleConvolution).
//
// Launch: 2-D NDRange, dimension 0 over x (columns), dimension 1 over y
//   (rows): global = (round_up(width), round_up(height)), any local size;
//   items outside the image return.
// Arguments: input and output are width x height row-major float images;
//   mask has (2 * radius + 1)^2 floats, row-major; width, height >= 1,
//   radius >= 0.
//
// Divergence: the bounds of the inner loop, max(0, x - radius) and
// min(width - 1, x + radius), vary across the lanes of a SIMD group (W
// consecutive x of one row) only in groups that touch the left or right
// border; there the loop is divergent and input[] a gather. The loop over j
// is uniform (y is uniform in a SIMD group). The paper's precondition for
// the fast path: radius <= x0 && x0 + W - 1 < width - radius (x0 the first x
// of the group), under which i - x is uniform and input[] contiguous.

__kernel void convolution2d(__global const float *input,
                            __global float *output,
                            __constant float *mask,
                            int width, int height, int radius)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)  //~ branch: divergent
        return;

    int mw = 2 * radius + 1;
    float sum = 0.0f;
    for (int j = max(0, y - radius); j <= min(height - 1, y + radius); ++j) {  //~ loop: uniform
        for (int i = max(0, x - radius); i <= min(width - 1, x + radius); ++i) {  //~ loop: divergent //~ warning[L0201]
            sum += input[j * width + i] * mask[(j - y + radius) * mw + (i - x + radius)];  //~ warning[L0202] warning[L0202]
        }
    }
    output[y * width + x] = sum;
}
