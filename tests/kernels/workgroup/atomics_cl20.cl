/*
 * atomics_cl20.cl - the C11-style atomics of OpenCL C 2.0: atomic_int and
 * atomic_uint objects in __global and __local memory, updated with
 * explicit memory orders (the default scope: the device for __global,
 * the work-group for __local objects).
 *
 * count_matches: counts the elements equal to key with
 *   atomic_fetch_add_explicit on one global counter.
 * digit_bins:    a 16-bin histogram of the low digit per work-group in
 *   __local atomic_int bins, written out per group.
 * float_max:     maximum of a float array by a compare-exchange loop on
 *   the bit pattern (valid for non-negative floats, whose bit patterns
 *   order like the values).
 *
 * Needs -cl-std=CL2.0.
 * Launch: 1-D, global = round_up(n, L), local = L >= 16.
 * Arguments: keys has n ints; count is one int, zeroed. digits has n
 *   uints, bins has 16 G ints. values has n non-negative floats; result is
 *   one uint holding the bits of 0.0f initially.
 */

// PoCL 3.1 declares these built-ins only for OpenCL C 3.0 with the
// generic address space; the kernels are OpenCL C 2.0.
// build: -cl-std=CL3.0
// skip-runtime: oclgrind -- oclgrind 21.10 cannot run OpenCL C 2.0 atomics
// run: count_matches --global 512 --local 64 --arg keys=random:500:0:10 --arg key=3 --arg count=zeros:1 --arg n=500
// run: count_matches --global 512 --local 256 --arg keys=random:500:0:10 --arg key=7 --arg count=zeros:1 --arg n=500
__kernel void count_matches(__global const int *keys, int key,
                            __global atomic_int *count, int n)
{
    int gid = get_global_id(0);  //~ shape: contiguous
    if (gid < n && keys[gid] == key)  //~ branch: divergent
        atomic_fetch_add_explicit(count, 1, memory_order_relaxed);  //~ warning[L0208]
}

// run: digit_bins --global 256 --local 64 --arg digits=random:256:0:1000 --arg bins=zeros:64 --arg n=256
// run: digit_bins --global 256 --local 16 --arg digits=random:250:0:1000 --arg bins=zeros:256 --arg n=250
__kernel void digit_bins(__global const uint *digits, __global int *bins, int n)
{
    __local atomic_int local_bins[16];

    int gid = get_global_id(0);
    int lid = get_local_id(0);  //~ shape: contiguous

    // Uniform on 8 lanes: SIMD groups start at multiples of 8 of lid.
    if (lid < 16)  //~ branch: uniform
        atomic_store_explicit(&local_bins[lid], 0, memory_order_relaxed);  //~ warning[L0209]
    work_group_barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n)
        atomic_fetch_add_explicit(&local_bins[digits[gid] % 16], 1,  //~ warning[L0209]
                                  memory_order_relaxed);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);

    if (lid < 16)
        bins[get_group_id(0) * 16 + lid] =
            atomic_load_explicit(&local_bins[lid], memory_order_relaxed);  //~ warning[L0209]
}

// run: float_max --global 512 --local 64 --arg values=random:500:0:1000 --arg result=zeros:1 --arg n=500
// run: float_max --global 128 --local 32 --arg values=random:100:0:5 --arg result=zeros:1 --arg n=100
__kernel void float_max(__global const float *values, __global atomic_uint *result, int n)
{
    int gid = get_global_id(0);
    if (gid >= n)
        return;
    uint mine = as_uint(values[gid]);  //~ shape: varying
    uint seen = atomic_load_explicit(result, memory_order_relaxed);  //~ warning[L0208]
    while (mine > seen &&  //~ loop: divergent //~ warning[L0201]
           !atomic_compare_exchange_weak_explicit(result, &seen, mine, memory_order_relaxed,  //~ warning[L0208]
                                                  memory_order_relaxed))
        ;
}
