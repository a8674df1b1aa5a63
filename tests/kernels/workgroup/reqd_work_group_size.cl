/*
 * reqd_work_group_size.cl - kernel attributes whose arguments are macros
 * and expressions: reqd_work_group_size(BLOCK_SIZE, 1, 1) with the block
 * size overridable by -D, work_group_size_hint(2 * BLOCK_SIZE, 1, 1),
 * vec_type_hint(float4), and an `aligned` __local array. The kernel is a
 * running (inclusive) maximum over each block of BLOCK_SIZE floats, by
 * Hillis-Steele steps in __local memory.
 *
 * Launch: 1-D, global = G BLOCK_SIZE, local = BLOCK_SIZE (required).
 * Arguments: in and out have G BLOCK_SIZE floats.
 */

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 64
#endif
#define LOG2_ALIGN 4

// run: running_max --global 256 --local 64 --arg in=random:256 --arg out=zeros:256
// run: running_max --global 256 --local 32 -D BLOCK_SIZE=32 --arg in=random:256 --arg out=zeros:256
// run: running_max --global 256 --local 128 -D BLOCK_SIZE=128 --arg in=random:256 --arg out=zeros:256
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
__attribute__((work_group_size_hint(2 * BLOCK_SIZE, 1, 1)))
__attribute__((vec_type_hint(float4)))
void running_max(__global const float *in, __global float *out)
{
    __local float buf[2][BLOCK_SIZE] __attribute__((aligned(1 << LOG2_ALIGN)));

    int lid = get_local_id(0);  //~ shape: contiguous
    int gid = get_global_id(0);
    int cur = 0;  //~ shape: uniform

    buf[0][lid] = in[gid];  //~ access: buf[0][lid]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < BLOCK_SIZE; d <<= 1) {  //~ loop: uniform
        float v = buf[cur][lid];
        if (lid >= d)  //~ branch: divergent
            v = fmax(v, buf[cur][lid - d]);  //~ access: buf[cur][lid - d]=contiguous
        buf[1 - cur][lid] = v;
        cur = 1 - cur;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = buf[cur][lid];
}
