// stencil_2d.cl - one explicit step of the 2-D heat equation,
// out = c + alpha (n + s + e + w - 4 c), with replicated borders. Each
// BX x BY work-group stages its cells and a one-cell halo on the four sides
// in a (BY + 2) x (BX + 2) __local tile; the work-items on the edge of the
// group load the halo (Rodinia hotspot / SHOC Stencil2D style).
//
// Launch: 2-D, global = (width, height), local = (BX, BY) (-D, 64 x 4 by
//   default); width a multiple of BX, height of BY.
// Arguments: in and out have width * height floats (row-major).

#ifndef BX
#define BX 64
#endif
#ifndef BY
#define BY 4
#endif

__kernel void stencil_2d(__global const float *in, __global float *out,
                         int width, int height, float alpha)
{
    __local float tile[BY + 2][BX + 2];

    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int gx = get_global_id(0);
    int gy = get_global_id(1);

    tile[ly + 1][lx + 1] = in[gy * width + gx];
    if (lx == 0)
        tile[ly + 1][0] = in[gy * width + max(gx - 1, 0)];
    if (lx == BX - 1)
        tile[ly + 1][BX + 1] = in[gy * width + min(gx + 1, width - 1)];
    if (ly == 0)
        tile[0][lx + 1] = in[max(gy - 1, 0) * width + gx];
    if (ly == BY - 1)
        tile[BY + 1][lx + 1] = in[min(gy + 1, height - 1) * width + gx];
    barrier(CLK_LOCAL_MEM_FENCE);

    float c = tile[ly + 1][lx + 1];
    float n = tile[ly][lx + 1];
    float s = tile[ly + 2][lx + 1];
    float w = tile[ly + 1][lx];
    float e = tile[ly + 1][lx + 2];
    out[gy * width + gx] = c + alpha * (n + s + e + w - 4.0f * c);
}
