/*
 * scan_blelloch.cl - exclusive and inclusive prefix sums of uints within a
 * work-group, two classic ways:
 *
 * scan_exclusive: work-efficient up-sweep / down-sweep (Blelloch 1990) on
 *   2 L elements in __local memory: reduce to the root, clear the root,
 *   then swap-and-add down the tree. Also writes each block's total to
 *   sums[group] (the input of the next level of a large scan).
 * scan_hillis_steele: step-efficient inclusive scan of L elements with two
 *   __local buffers used alternately (a double buffer, so no work-item reads
 *   a slot that another overwrites in the same step).
 *
 * Launch: 1-D, global = G L, local = L (power of two, at most 256).
 * Arguments: scan_exclusive: data has 2 G L uints (scanned in place per
 *   block of 2 L), sums has G uints. scan_hillis_steele: in and out have
 *   G L uints.
 */

#define MAX_GROUP 256

// run: scan_exclusive --global 128 --local 64 --arg data=random:256 --arg sums=zeros:2
// run: scan_exclusive --global 256 --local 256 --arg data=random:512 --arg sums=zeros:1
// run: scan_exclusive --global 64 --local 16 --arg data=random:128 --arg sums=zeros:4
__kernel void scan_exclusive(__global uint *data, __global uint *sums)
{
    __local uint temp[2 * MAX_GROUP];

    uint thid = get_local_id(0);  //~ shape: contiguous
    uint n = 2 * get_local_size(0);  //~ shape: uniform
    uint base = get_group_id(0) * n;
    uint offset = 1;

    temp[2 * thid] = data[base + 2 * thid];  //~ access: temp[2 * thid]=store:strided(8) //~ warning[L0204]
    temp[2 * thid + 1] = data[base + 2 * thid + 1];  //~ warning[L0204]

    for (uint d = n >> 1; d > 0; d >>= 1) {  //~ loop: uniform
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {  //~ branch: divergent
            uint ai = offset * (2 * thid + 1) - 1;
            uint bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];  //~ warning[L0202] warning[L0203]
        }
        offset <<= 1;
    }

    if (thid == 0) {  //~ branch: divergent
        sums[get_group_id(0)] = temp[n - 1];
        temp[n - 1] = 0;
    }

    for (uint d = 1; d < n; d <<= 1) {  //~ loop: uniform
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            uint ai = offset * (2 * thid + 1) - 1;
            uint bi = offset * (2 * thid + 2) - 1;
            uint t = temp[ai];  //~ warning[L0202]
            temp[ai] = temp[bi];  //~ warning[L0203] warning[L0202]
            temp[bi] += t;  //~ warning[L0202] warning[L0203]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    data[base + 2 * thid] = temp[2 * thid];  //~ warning[L0204]
    data[base + 2 * thid + 1] = temp[2 * thid + 1];  //~ warning[L0204]
}

// run: scan_hillis_steele --global 256 --local 64 --arg in=random:256 --arg out=zeros:256
// run: scan_hillis_steele --global 256 --local 128 --arg in=random:256 --arg out=zeros:256
__kernel void scan_hillis_steele(__global const uint *in, __global uint *out)
{
    __local uint buf[2][MAX_GROUP];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint gid = get_global_id(0);
    uint pout = 0, pin = 1;  //~ shape: uniform

    buf[pout][lid] = in[gid];  //~ access: buf[pout][lid]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint offset = 1; offset < get_local_size(0); offset <<= 1) {  //~ loop: uniform
        pout = 1 - pout;
        pin = 1 - pout;
        if (lid >= offset)  //~ branch: divergent
            buf[pout][lid] = buf[pin][lid] + buf[pin][lid - offset];  //~ access: buf[pin][lid - offset]=contiguous
        else
            buf[pout][lid] = buf[pin][lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = buf[pout][lid];
}
