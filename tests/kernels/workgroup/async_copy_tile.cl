/*
 * async_copy_tile.cl - the asynchronous copy built-ins of OpenCL 1.x:
 *
 * scale_tiles: every work-group copies a tile of TILE_ITEMS L floats into
 *   __local memory with async_work_group_copy, waits for it with
 *   wait_group_events, scales it in place (each work-item TILE_ITEMS
 *   elements, stride L), and copies it back out asynchronously.
 * column_sums: async_work_group_strided_copy gathers column g of a
 *   rows x cols matrix (stride cols) into __local memory; the group then
 *   reduces it (sequential addressing) and work-item 0 writes the sum.
 *   prefetch hints the next column to the cache.
 *
 * Launch: scale_tiles: 1-D, global = G L, local = L; n = TILE_ITEMS G L.
 *   column_sums: 1-D, global = cols L, local = L (a power of two); rows
 *   <= 2 L.
 * Arguments: data has n floats (scaled in place); m has rows * cols floats,
 *   sums has cols floats; tile is the __local scratch (TILE_ITEMS L floats,
 *   resp. 2 L floats).
 */

#ifndef TILE_ITEMS
#define TILE_ITEMS 4
#endif

// run: scale_tiles --global 256 --local 64 --arg data=random:1024 --arg tile=local:1024 --arg factor=2.5
// run: scale_tiles --global 256 --local 128 --arg data=random:1024 --arg tile=local:2048 --arg factor=-1.5
// run: scale_tiles --global 64 --local 16 -D TILE_ITEMS=8 --arg data=random:512 --arg tile=local:512 --arg factor=3
__kernel void scale_tiles(__global float *data, __local float *tile, float factor)
{
    size_t lid = get_local_id(0);  //~ shape: contiguous
    size_t L = get_local_size(0);  //~ shape: uniform
    size_t tile_size = TILE_ITEMS * L;
    size_t base = get_group_id(0) * tile_size;  //~ shape: uniform

    event_t in = async_work_group_copy(tile, data + base, tile_size, 0);
    wait_group_events(1, &in);

    for (int k = 0; k < TILE_ITEMS; k++)  //~ loop: uniform
        tile[k * L + lid] *= factor;  //~ access: tile[k * L + lid]=contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    event_t out = async_work_group_copy(data + base, tile, tile_size, 0);
    wait_group_events(1, &out);
}

// oclgrind: ignore uninitialized (oclgrind 21.10 does not mark the
// elements written by async_work_group_strided_copy as initialised)
// run: column_sums --global 512 --local 64 --arg m=random:800 --arg sums=zeros:8 --arg tile=local:512 --arg rows=100 --arg cols=8
// run: column_sums --global 384 --local 32 --arg m=random:768 --arg sums=zeros:12 --arg tile=local:256 --arg rows=64 --arg cols=12
// run: column_sums --global 160 --local 16 --arg m=random:300 --arg sums=zeros:10 --arg tile=local:128 --arg rows=30 --arg cols=10
__kernel void column_sums(__global const float *m, __global float *sums,
                          __local float *tile, int rows, int cols)
{
    int lid = get_local_id(0);  //~ shape: contiguous
    int L = get_local_size(0);
    int col = get_group_id(0);  //~ shape: uniform

    event_t e = async_work_group_strided_copy(tile, m + col, rows, cols, 0);  //~ warning[L0202]
    if (col + 1 < cols)  //~ branch: uniform
        prefetch(m + col + 1, 1);
    wait_group_events(1, &e);

    // Rows beyond the column length count as zero.
    for (int i = rows + lid; i < 2 * L; i += L)  //~ loop: divergent //~ warning[L0201]
        tile[i] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = L; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s)  //~ branch: divergent
            tile[lid] += tile[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[col] = tile[0];
}
