// convolution.cl - a 1-D convolution, the running example of lanes.
//
// This is the kernel of Fig. 1 in Moll and Hack, "Synthesizing Hot Code
// Paths by Abductive Reasoning". Every work-item computes one output pixel x
// as the weighted sum of its neighbours input[x - vstep .. x + vstep], with
// the weights in stencil. Neighbours outside the image do not contribute,
// so the loop over the stencil is clipped at the image border.
//
// How to launch it: a 1-D NDRange with one work-item per pixel. The global
// size may be rounded up to a multiple of the work-group size; the extra
// work-items leave through the first `if`.
//   input, output  width floats each
//   stencil        stencilWidth floats, stencilWidth odd (3, 5, 7, ...)
//
// What lanes shows on this kernel (try `lanes explain examples/convolution.cl`):
// lanes runs W consecutive work-items together in the lanes of a SIMD
// register (W = 4, 8 or 16 depending on the target).
//   - x is *contiguous*: lane l of a SIMD group holds x0 + l.
//   - vstep, width and stencilWidth are *uniform*: the same in all lanes.
//   - left and right depend on x through max() and min(), so near the two
//     image borders the number of iterations of the `for` loop differs
//     between lanes: the loop is *divergent*, and must run with masks until
//     the last lane is done.
//   - In the middle of the image max() and min() always pick x - vstep and
//     x + vstep. lanes infers this precondition for the whole SIMD group:
//         vstep <= x && x < width - vstep
//     Where it holds, the loop is uniform, input[i] is a contiguous vector
//     load and stencil[i - (x - vstep)] a single scalar load. The code
//     action "Add fast path" inserts an `if (sub_group_all(...))` that
//     selects this fast version for the interior of the image.

__kernel void convolution(__global const float *input,
                          __global float *output,
                          __global const float *stencil,
                          int width,
                          int stencilWidth)
{
    // One work-item per pixel.
    int x = get_global_id(0);  //~ shape: contiguous

    // Work-items beyond the image (the global size was rounded up) do nothing.
    if (x >= width)  //~ branch: divergent
        return;

    // The stencil reaches vstep pixels to each side.
    int vstep = (stencilWidth - 1) / 2;  //~ shape: uniform

    // Clip the neighbourhood [x - vstep, x + vstep] to the image [0, width - 1].
    int left = max(0, x - vstep);  //~ shape: varying
    int right = min(width - 1, x + vstep);  //~ shape: varying

    // Weighted sum of the neighbours inside the image; stencil index 0
    // belongs to pixel x - vstep.
    float sum = 0.0f;  //~ shape: varying
    for (int i = left; i <= right; ++i)  //~ shape: varying //~ loop: divergent //~ warning[L0201]
        sum += input[i] * stencil[i - (x - vstep)];  //~ access: input[i]=gather, stencil[i - (x - vstep)]=gather //~ warning[L0202] warning[L0202]

    output[x] = sum;  //~ access: output[x]=store:contiguous
}
