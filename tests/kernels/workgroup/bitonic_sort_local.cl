/*
 * bitonic_sort_local.cl - sorts each block of L uints (L the local size, a
 * power of two) in __local memory with Batcher's bitonic network: for every
 * stage k = 2, 4, ..., L and pass j = k/2, ..., 1, work-item t compares
 * element t with its partner t ^ j and swaps them into the direction of
 * the k-sized subsequence; a barrier separates the passes.
 * sort_blocks sorts ascending; sort_blocks_dir takes the direction of the
 * whole block as an argument and holds two elements per work-item.
 *
 * Launch: 1-D, global = G L, local = L (power of two).
 * Arguments: data has G L uints (sort_blocks) or 2 G L uints
 *   (sort_blocks_dir), sorted in place block by block; ascending is 0 or 1.
 */

#define MAX_BLOCK 512

// run: sort_blocks --global 256 --local 64 --arg data=random:256:0:1000
// run: sort_blocks --global 256 --local 256 --arg data=random:256:0:1000
// run: sort_blocks --global 64 --local 8 --arg data=random:64:0:1000
__kernel void sort_blocks(__global uint *data)
{
    __local uint tile[MAX_BLOCK];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint gid = get_global_id(0);
    uint L = get_local_size(0);

    tile[lid] = data[gid];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint k = 2; k <= L; k <<= 1) {  //~ loop: uniform //~ shape: k=uniform
        for (uint j = k >> 1; j > 0; j >>= 1) {  //~ loop: uniform //~ shape: j=uniform
            uint ixj = lid ^ j;  //~ shape: varying
            if (ixj > lid) {  //~ branch: divergent
                uint a = tile[lid];  //~ access: tile[lid]=contiguous
                uint b = tile[ixj];  //~ access: tile[ixj]=gather //~ warning[L0202]
                bool up = (lid & k) == 0;
                if ((a > b) == up) {  //~ branch: divergent
                    tile[lid] = b;
                    tile[ixj] = a;  //~ access: tile[ixj]=store:scatter //~ warning[L0203]
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    data[gid] = tile[lid];
}

inline void compare_exchange(__local uint *a, __local uint *b, bool dir)
{
    if ((*a > *b) == dir) {  //~ warning[L0202]
        uint t = *a;  //~ warning[L0202]
        *a = *b;  //~ warning[L0203] warning[L0202]
        *b = t;  //~ warning[L0203]
    }
}

// run: sort_blocks_dir --global 128 --local 64 --arg data=random:256:0:1000 --arg ascending=1
// run: sort_blocks_dir --global 128 --local 32 --arg data=random:256:0:1000 --arg ascending=0
__kernel void sort_blocks_dir(__global uint *data, uint ascending)
{
    __local uint tile[MAX_BLOCK];

    uint lid = get_local_id(0);
    uint L = get_local_size(0);
    uint n = 2 * L;  //~ shape: uniform
    uint base = get_group_id(0) * n;

    tile[lid] = data[base + lid];
    tile[lid + L] = data[base + lid + L];  //~ access: tile[lid + L]=store:contiguous

    for (uint size = 2; size <= n; size <<= 1) {  //~ loop: uniform
        // Within the block the subsequences alternate direction; the last
        // merge runs in the requested one.
        bool dir = (size == n) ? (ascending != 0) : (((lid & (size / 2)) == 0) == (ascending != 0));
        for (uint stride = size / 2; stride > 0; stride >>= 1) {  //~ loop: uniform
            barrier(CLK_LOCAL_MEM_FENCE);
            uint pos = 2 * lid - (lid & (stride - 1));  //~ shape: varying
            compare_exchange(&tile[pos], &tile[pos + stride], dir);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    data[base + lid] = tile[lid];
    data[base + lid + L] = tile[lid + L];
}
