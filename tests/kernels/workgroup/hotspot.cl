/*
 * hotspot.cl - one step of Rodinia's HotSpot thermal simulation: the
 * temperature of every cell of a grid_rows x grid_cols chip moves towards
 * its neighbours (thermal resistances Rx, Ry), the ambient temperature
 * (Rz) and its own power dissipation. The temperatures of a BLOCK_SIZE x
 * BLOCK_SIZE block and its one-cell halo are staged in __local memory;
 * cells outside the chip take the border cell's temperature.
 *
 * Launch: 2-D, global = (grid_cols, grid_rows), local = (BLOCK_SIZE,
 *   BLOCK_SIZE) as required; both dimensions multiples of BLOCK_SIZE.
 * Arguments: power, temp_src and temp_dst have grid_rows * grid_cols
 *   floats (row-major); Cap, Rx, Ry, Rz > 0.
 */

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

// run: hotspot --global 64,32 --local 16,16 --arg power=random:2048 --arg temp_src=random:2048:320:340 --arg temp_dst=zeros:2048 --arg grid_cols=64 --arg grid_rows=32 --arg Cap=0.5 --arg Rx=1.5 --arg Ry=1.5 --arg Rz=4 --arg step=0.01 --arg amb_temp=80
// run: hotspot --global 32,32 --local 8,8 -D BLOCK_SIZE=8 --arg power=random:1024 --arg temp_src=random:1024:320:340 --arg temp_dst=zeros:1024 --arg grid_cols=32 --arg grid_rows=32 --arg Cap=0.5 --arg Rx=1.5 --arg Ry=2 --arg Rz=4 --arg step=0.01 --arg amb_temp=80
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, BLOCK_SIZE, 1)))
void hotspot(__global const float *power, __global const float *temp_src,
             __global float *temp_dst, int grid_cols, int grid_rows,
             float Cap, float Rx, float Ry, float Rz, float step,
             float amb_temp)
{
    __local float temp_on_chip[BLOCK_SIZE + 2][BLOCK_SIZE + 2];

    int tx = get_local_id(0);  //~ shape: contiguous
    int ty = get_local_id(1);  //~ shape: uniform
    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    int index = y * grid_cols + x;  //~ shape: contiguous

    temp_on_chip[ty + 1][tx + 1] = temp_src[index];  //~ access: temp_on_chip[ty + 1][tx + 1]=store:contiguous, temp_src[index]=contiguous
    if (tx == 0)  //~ branch: divergent
        temp_on_chip[ty + 1][0] = temp_src[y * grid_cols + max(x - 1, 0)];  //~ warning[L0202]
    if (tx == BLOCK_SIZE - 1)
        temp_on_chip[ty + 1][BLOCK_SIZE + 1] = temp_src[y * grid_cols + min(x + 1, grid_cols - 1)];  //~ warning[L0202]
    if (ty == 0)  //~ branch: uniform
        temp_on_chip[0][tx + 1] = temp_src[max(y - 1, 0) * grid_cols + x];
    if (ty == BLOCK_SIZE - 1)
        temp_on_chip[BLOCK_SIZE + 1][tx + 1] = temp_src[min(y + 1, grid_rows - 1) * grid_cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    float step_div_Cap = step / Cap;  //~ shape: uniform
    float Rx_1 = 1.0f / Rx, Ry_1 = 1.0f / Ry, Rz_1 = 1.0f / Rz;
    float c = temp_on_chip[ty + 1][tx + 1];
    float n = temp_on_chip[ty][tx + 1];
    float s = temp_on_chip[ty + 2][tx + 1];
    float w = temp_on_chip[ty + 1][tx];  //~ access: temp_on_chip[ty + 1][tx]=contiguous
    float e = temp_on_chip[ty + 1][tx + 2];

    temp_dst[index] = c + step_div_Cap * (power[index] + (s + n - 2.0f * c) * Ry_1 +  //~ access: temp_dst[index]=store:contiguous, power[index]=contiguous
                                          (e + w - 2.0f * c) * Rx_1 + (amb_temp - c) * Rz_1);
}
