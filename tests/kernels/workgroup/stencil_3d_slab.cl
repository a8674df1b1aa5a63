/*
 * stencil_3d_slab.cl - 7-point 3-D Jacobi stencil in the manner of the
 * Parboil "stencil" benchmark: the work-group covers an LX x LY column of
 * the grid and marches along z, keeping the current xy plane (plus a
 * one-cell halo) in __local memory and the planes below and above in
 * registers. Boundary cells (x, y or z on the grid's faces) are copied.
 *
 * Launch: 2-D, global = (nx, ny), local = (LX, LY) as required; nx a
 *   multiple of LX, ny of LY.
 * Arguments: A0 and Anext have nx * ny * nz floats (x fastest); c0, c1 the
 *   weights of the centre and of the six neighbours; nz >= 2.
 */

#ifndef LX
#define LX 16
#endif
#ifndef LY
#define LY 4
#endif
#define IDX(x, y, z) ((x) + nx * ((y) + ny * (z)))

// run: block2D_stencil --global 32,8 --local 16,4 --arg c0=0.4 --arg c1=0.1 --arg A0=random:1536 --arg Anext=zeros:1536 --arg nx=32 --arg ny=8 --arg nz=6
// run: block2D_stencil --global 32,8 --local 8,8 -D LX=8 -D LY=8 --arg c0=0.4 --arg c1=0.1 --arg A0=random:1536 --arg Anext=zeros:1536 --arg nx=32 --arg ny=8 --arg nz=6
__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))
void block2D_stencil(float c0, float c1, __global const float *A0,
                     __global float *Anext, int nx, int ny, int nz)
{
    __local float plane[LY + 2][LX + 2];

    int tx = get_local_id(0);  //~ shape: contiguous
    int ty = get_local_id(1);  //~ shape: uniform
    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    bool interior = x > 0 && x < nx - 1 && y > 0 && y < ny - 1;  //~ shape: varying

    float below = A0[IDX(x, y, 0)];
    float current = A0[IDX(x, y, 1)];
    Anext[IDX(x, y, 0)] = below;
    Anext[IDX(x, y, nz - 1)] = A0[IDX(x, y, nz - 1)];

    for (int z = 1; z < nz - 1; z++) {  //~ loop: uniform //~ shape: z=uniform
        float above = A0[IDX(x, y, z + 1)];

        plane[ty + 1][tx + 1] = current;  //~ access: plane[ty + 1][tx + 1]=store:contiguous
        if (tx == 0 && x > 0)
            plane[ty + 1][0] = A0[IDX(x - 1, y, z)];
        if (tx == LX - 1 && x < nx - 1)
            plane[ty + 1][LX + 1] = A0[IDX(x + 1, y, z)];
        if (ty == 0 && y > 0)
            plane[0][tx + 1] = A0[IDX(x, y - 1, z)];
        if (ty == LY - 1 && y < ny - 1)
            plane[LY + 1][tx + 1] = A0[IDX(x, y + 1, z)];
        barrier(CLK_LOCAL_MEM_FENCE);

        if (interior)  //~ branch: divergent
            Anext[IDX(x, y, z)] = c1 * (plane[ty + 1][tx] + plane[ty + 1][tx + 2] +
                                        plane[ty][tx + 1] + plane[ty + 2][tx + 1] +
                                        below + above) - c0 * current;
        else
            Anext[IDX(x, y, z)] = current;
        barrier(CLK_LOCAL_MEM_FENCE);

        below = current;
        current = above;
    }
}
