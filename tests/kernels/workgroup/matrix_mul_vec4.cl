/*
 * matrix_mul_vec4.cl - C = A * B with float4 vectors, in the manner of the
 * AMD APP SDK MatrixMultiplication sample: every work-item computes four
 * adjacent elements of a row of C (one float4); the work-group stages a
 * LY x (4 LX) block of A in __local memory as float4 and reads B directly
 * as float4 rows.
 *
 * Launch: 2-D, global = (wB / 4, hA), local = (LX, LY) = (TILE_X, TILE_Y).
 * Arguments: A is hA x wA, B is wA x wB, C is hA x wB, row-major, as
 *   float4 (wA a multiple of 4 TILE_X, wB a multiple of 4 TILE_X, hA a
 *   multiple of TILE_Y).
 */

#ifndef TILE_X
#define TILE_X 8
#endif
#ifndef TILE_Y
#define TILE_Y 8
#endif

// run: mmm_vec4 --global 16,32 --local 8,8 --arg A=random:512 --arg B=random:1024 --arg C=zeros:512 --arg wA=64 --arg wB=64
// run: mmm_vec4 --global 16,16 --local 16,4 -D TILE_X=16 -D TILE_Y=4 --arg A=random:256 --arg B=random:1024 --arg C=zeros:256 --arg wA=64 --arg wB=64
// run: mmm_vec4 --global 4,8 --local 2,2 -D TILE_X=2 -D TILE_Y=2 --arg A=random:32 --arg B=random:64 --arg C=zeros:32 --arg wA=16 --arg wB=16
__kernel __attribute__((reqd_work_group_size(TILE_X, TILE_Y, 1)))
void mmm_vec4(__global const float4 *A, __global const float4 *B,
              __global float4 *C, int wA, int wB)
{
    __local float4 Asub[TILE_Y][TILE_X];

    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int wA4 = wA / 4;  //~ shape: uniform
    int wB4 = wB / 4;

    float4 acc = (float4)(0.0f);
    for (int k0 = 0; k0 < wA4; k0 += TILE_X) {  //~ loop: uniform
        Asub[ly][lx] = A[y * wA4 + k0 + lx];  //~ access: Asub[ly][lx]=store:contiguous, A[y * wA4 + k0 + lx]=contiguous
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int j = 0; j < TILE_X; j++) {  //~ loop: uniform
            float4 a = Asub[ly][j];  //~ shape: uniform //~ access: Asub[ly][j]=uniform
            int k = 4 * (k0 + j);
            acc += a.x * B[(k + 0) * wB4 + x];  //~ access: B[(k + 0) * wB4 + x]=contiguous
            acc += a.y * B[(k + 1) * wB4 + x];
            acc += a.z * B[(k + 2) * wB4 + x];
            acc += a.w * B[(k + 3) * wB4 + x];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[y * wB4 + x] = acc;  //~ access: C[y * wB4 + x]=store:contiguous
}
