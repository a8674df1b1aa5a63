/*
 * kmeans_atomic.cl - one Lloyd iteration of k-means on 2-D points, in one
 * kernel: every work-item assigns its point to the nearest of K centroids
 * (staged in __local memory) and adds the point into that cluster's sums.
 * Floating-point atomics do not exist in OpenCL C 1.2, so coordinates are
 * accumulated in fixed point (FIXED_SCALE units, integers): first per
 * work-group in __local memory (atomic_add, atomic_inc), then merged into
 * the global sums once per cluster and work-group.
 *
 * Launch: 1-D, global = round_up(n, L), local = L >= K; items at or beyond
 *   n take part in the barriers only.
 * Arguments: points has n float2 in [0, 1); centroids has K float2;
 *   membership has n ints (the cluster of each point); sums has 2 K ints
 *   and counts K ints, zeroed by the host (the next centroids are
 *   sums / (FIXED_SCALE * counts)).
 */

#ifndef K
#define K 8
#endif
#define FIXED_SCALE 1024.0f

// run: kmeans_assign --global 512 --local 64 --arg points=random:500 --arg centroids=random:8 --arg membership=zeros:500 --arg sums=zeros:16 --arg counts=zeros:8 --arg n=500
// run: kmeans_assign --global 512 --local 256 --arg points=random:500 --arg centroids=random:8 --arg membership=zeros:500 --arg sums=zeros:16 --arg counts=zeros:8 --arg n=500
// run: kmeans_assign --global 96 --local 16 -D K=4 --arg points=random:90 --arg centroids=random:4 --arg membership=zeros:90 --arg sums=zeros:8 --arg counts=zeros:4 --arg n=90
__kernel void kmeans_assign(__global const float2 *points,
                            __global const float2 *centroids,
                            __global int *membership,
                            __global int *sums, __global int *counts, int n)
{
    __local float2 c[K];
    __local int local_sums[2 * K];
    __local int local_counts[K];

    int gid = get_global_id(0);  //~ shape: contiguous
    int lid = get_local_id(0);  //~ shape: contiguous

    // K is a multiple of the SIMD width (8 lanes for the expectations), so
    // whole SIMD groups take this branch.
    if (lid < K) {  //~ branch: uniform
        c[lid] = centroids[lid];  //~ access: c[lid]=store:contiguous, centroids[lid]=contiguous
        local_sums[2 * lid] = 0;  //~ warning[L0204]
        local_sums[2 * lid + 1] = 0;  //~ warning[L0204]
        local_counts[lid] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n) {  //~ branch: divergent
        float2 p = points[gid];
        int best = 0;  //~ shape: varying
        float best_d = INFINITY;
        for (int k = 0; k < K; k++) {  //~ loop: uniform //~ shape: k=uniform
            float2 d = p - c[k];  //~ access: c[k]=uniform
            float dist = dot(d, d);
            if (dist < best_d) {  //~ branch: divergent
                best_d = dist;
                best = k;
            }
        }
        membership[gid] = best;
        atomic_add(&local_sums[2 * best], (int)(p.x * FIXED_SCALE));  //~ warning[L0209]
        atomic_add(&local_sums[2 * best + 1], (int)(p.y * FIXED_SCALE));  //~ warning[L0209]
        atomic_inc(&local_counts[best]);  //~ warning[L0209]
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid < K) {
        atomic_add(&sums[2 * lid], local_sums[2 * lid]);  //~ warning[L0209] warning[L0204]
        atomic_add(&sums[2 * lid + 1], local_sums[2 * lid + 1]);  //~ warning[L0209] warning[L0204]
        atomic_add(&counts[lid], local_counts[lid]);  //~ warning[L0209]
    }
}
