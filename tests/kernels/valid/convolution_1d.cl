// convolution_1d.cl - the 1-D convolution of Moll and Hack, "Synthesizing
// Hot Code Paths by Abductive Reasoning", Fig. 1: pixels outside the image
// do not contribute, so the stencil loop is clipped at the image border.
//
// Launch: 1-D, one work-item per pixel x: global = round_up(width, L) for
//   any local size L; items with x >= width return.
// Arguments: input and output have width floats; stencil has stencilWidth
//   floats, stencilWidth odd and >= 1; width >= 1.
//
// The trip count of the stencil loop depends on x near the borders (a
// divergent loop); for SIMD groups whose lanes all satisfy
// vstep <= x && x < width - vstep it is uniform and input[i] is contiguous.

__kernel void convolution_1d(__global const float *input,
                             __global float *output,
                             __global const float *stencil,
                             int width,
                             int stencilWidth)
{
    int x = get_global_id(0);  //~ shape: contiguous
    if (x >= width)  //~ branch: divergent
        return;

    int vstep = (stencilWidth - 1) / 2;  //~ shape: uniform
    int left = max(0, x - vstep);  //~ shape: varying
    int right = min(width - 1, x + vstep);  //~ shape: varying

    float sum = 0.0f;  //~ shape: varying
    for (int i = left; i <= right; ++i)  //~ shape: varying //~ loop: divergent //~ warning[L0201]
        sum += input[i] * stencil[i - (x - vstep)];  //~ access: input[i]=gather, stencil[i - (x - vstep)]=gather //~ warning[L0202] warning[L0202]

    output[x] = sum;  //~ access: output[x]=store:contiguous
}
