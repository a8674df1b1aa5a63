// floyd_warshall_step.cl - one relaxation step (for a fixed intermediate
// vertex k) of the Floyd-Warshall all-pairs shortest paths algorithm; the
// host launches it for k = 0 .. n-1. Path lengths are floats, INFINITY
// meaning no edge; next records the successor for path reconstruction.
//
// Launch: 2-D NDRange over the n x n distance matrix, dimension 0 over
//   columns j, dimension 1 over rows i: global = (round_up(n), round_up(n));
//   items outside return.
// Arguments: dist is n x n row-major floats, next is n x n row-major ints,
//   0 <= k < n.
//
// dist[i * n + k] is uniform across a SIMD group, dist[k * n + j] is
// contiguous; the update is a divergent branch.

__kernel void floyd_warshall_step(__global float *dist, __global int *next,
                                  int n, int k)
{
    int j = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform
    if (i >= n || j >= n)
        return;

    float via = dist[i * n + k] + dist[k * n + j];  //~ shape: varying //~ access: dist[i * n + k]=uniform, dist[k * n + j]=contiguous
    if (via < dist[i * n + j]) {  //~ branch: divergent //~ access: dist[i * n + j]=contiguous
        dist[i * n + j] = via;  //~ access: dist[i * n + j]=store:contiguous
        next[i * n + j] = next[i * n + k];  //~ access: next[i * n + j]=store:contiguous, next[i * n + k]=uniform
    }
}
