// kmeans_assign.cl - the assignment step of k-means: each point is assigned
// to the nearest of k centroids (squared Euclidean distance, first index on
// ties); membership changes are counted per point.
//
// Launch: 1-D, one work-item per point: global = round_up(npoints); ids >=
//   npoints return.
// Arguments: points is npoints x nfeatures row-major (point-major) floats;
//   centroids is k x nfeatures row-major; membership has npoints ints (the
//   previous assignment on input, the new one on output); changed has
//   npoints ints (1 if the assignment changed). k >= 1, nfeatures >= 1.
//
// Both loops are uniform; centroids[c * nfeatures + f] is a uniform load,
// points[p * nfeatures + f] is strided by nfeatures.

__kernel void kmeans_assign(__global const float *points,
                            __global const float *centroids,
                            __global int *membership, __global int *changed,
                            int npoints, int nfeatures, int k)
{
    int p = get_global_id(0);  //~ shape: contiguous
    if (p >= npoints)  //~ branch: divergent
        return;

    int best = 0;  //~ shape: varying
    float best_d = INFINITY;  //~ shape: varying
    for (int c = 0; c < k; c++) {  //~ shape: uniform //~ loop: uniform
        float d = 0.0f;  //~ shape: varying
        for (int f = 0; f < nfeatures; f++) {  //~ shape: uniform //~ loop: uniform
            float diff = points[p * nfeatures + f] - centroids[c * nfeatures + f];  //~ shape: varying //~ access: points[p * nfeatures + f]=gather, centroids[c * nfeatures + f]=uniform //~ warning[L0202]
            d += diff * diff;
        }
        if (d < best_d) {  //~ branch: divergent
            best_d = d;
            best = c;
        }
    }
    changed[p] = membership[p] != best;  //~ access: changed[p]=store:contiguous, membership[p]=load:contiguous
    membership[p] = best;  //~ access: membership[p]=store:contiguous
}

// The same with the features stored feature-major (column-major, as
// Rodinia's GPU version transposes them), which makes the point loads
// contiguous.
__kernel void kmeans_assign_soa(__global const float *features,
                                __global const float *centroids,
                                __global int *membership,
                                int npoints, int nfeatures, int k)
{
    int p = get_global_id(0);  //~ shape: contiguous
    if (p >= npoints)  //~ branch: divergent
        return;

    int best = 0;
    float best_d = INFINITY;
    for (int c = 0; c < k; c++) {  //~ shape: uniform //~ loop: uniform
        float d = 0.0f;
        for (int f = 0; f < nfeatures; f++) {  //~ shape: uniform //~ loop: uniform
            float diff = features[f * npoints + p] - centroids[c * nfeatures + f];  //~ shape: varying //~ access: features[f * npoints + p]=contiguous, centroids[c * nfeatures + f]=uniform
            d = mad(diff, diff, d);
        }
        best = d < best_d ? c : best;  //~ branch: divergent
        best_d = fmin(d, best_d);
    }
    membership[p] = best;  //~ access: membership[p]=store:contiguous
}
