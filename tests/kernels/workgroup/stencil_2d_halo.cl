/*
 * stencil_2d_halo.cl - one explicit step of the 2-D heat equation,
 * out = c + alpha (n + s + e + w - 4 c), on a width x height grid with
 * replicated borders (a neighbour outside the grid is the nearest border
 * cell). Each BX x BY work-group stages its cells plus a one-cell halo on
 * the four sides in a (BY + 2) x (BX + 2) __local tile; the work-items on
 * the edge of the group load the halo.
 *
 * Launch: 2-D, global = (width, height), local = (BX, BY) as fixed by
 *   reqd_work_group_size; width a multiple of BX, height of BY.
 * Arguments: in and out have width * height floats (row-major).
 */

#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 8
#endif

// run: heat_step --global 64,32 --local 16,8 --arg in=random:2048 --arg out=zeros:2048 --arg width=64 --arg height=32 --arg alpha=0.2
// run: heat_step --global 64,32 --local 8,4 -D BX=8 -D BY=4 --arg in=random:2048 --arg out=zeros:2048 --arg width=64 --arg height=32 --arg alpha=0.2
// run: heat_step --global 32,32 --local 32,2 -D BX=32 -D BY=2 --arg in=random:1024 --arg out=zeros:1024 --arg width=32 --arg height=32 --arg alpha=0.1
__attribute__((reqd_work_group_size(BX, BY, 1)))
__kernel void heat_step(__global const float *in, __global float *out,
                        int width, int height, float alpha)
{
    __local float tile[BY + 2][BX + 2];

    int lx = get_local_id(0);  //~ shape: contiguous
    int ly = get_local_id(1);  //~ shape: uniform
    int gx = get_global_id(0);  //~ shape: contiguous
    int gy = get_global_id(1);  //~ shape: uniform

    tile[ly + 1][lx + 1] = in[gy * width + gx];  //~ access: tile[ly + 1][lx + 1]=store:contiguous, in[gy * width + gx]=contiguous

    // Halo columns (left and right) and rows (top and bottom).
    if (lx == 0)  //~ branch: divergent
        tile[ly + 1][0] = in[gy * width + max(gx - 1, 0)];  //~ access: tile[ly + 1][0]=store:uniform //~ warning[L0202]
    if (lx == BX - 1)
        tile[ly + 1][BX + 1] = in[gy * width + min(gx + 1, width - 1)];  //~ warning[L0202]
    if (ly == 0)  //~ branch: uniform
        tile[0][lx + 1] = in[max(gy - 1, 0) * width + gx];  //~ access: tile[0][lx + 1]=store:contiguous
    if (ly == BY - 1)  //~ branch: uniform
        tile[BY + 1][lx + 1] = in[min(gy + 1, height - 1) * width + gx];
    barrier(CLK_LOCAL_MEM_FENCE);

    float c = tile[ly + 1][lx + 1];
    float n = tile[ly][lx + 1];  //~ access: tile[ly][lx + 1]=contiguous
    float s = tile[ly + 2][lx + 1];
    float w = tile[ly + 1][lx];
    float e = tile[ly + 1][lx + 2];
    out[gy * width + gx] = c + alpha * (n + s + e + w - 4.0f * c);
}
