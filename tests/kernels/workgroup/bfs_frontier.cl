/*
 * bfs_frontier.cl - one level of a breadth-first search over a graph in
 * CSR form, two ways:
 *
 * bfs_queue: frontier-queue BFS. Every work-item expands one vertex of the
 *   current frontier; a neighbour is claimed with atomic_cmpxchg on its
 *   level (-1 = unvisited) and appended to the next frontier at a slot
 *   taken with atomic_inc on a global counter.
 * bfs_queue_local: the same, but the claimed vertices are first queued in
 *   __local memory; one work-item per group reserves space in the global
 *   queue with a single atomic_add, then the group copies its queue out.
 * bfs_mask: the first kernel of Rodinia's bfs, on masks: every vertex in
 *   the frontier mask visits its unvisited neighbours (cost = level + 1),
 *   marks them in the updating mask and sets *over. Several work-items may
 *   write the same neighbour; Rodinia relies on the writes being equal,
 *   here they are atomic_xchg so that no two plain stores meet.
 *
 * Launch: 1-D, global = round_up(number of work-items needed, L), any L;
 *   items beyond the frontier size / vertex count return before any
 *   barrier (bfs_queue, bfs_mask) or skip the expansion (bfs_queue_local).
 * Arguments: row_offsets has nodes + 1 non-decreasing ints starting at 0,
 *   cols has row_offsets[nodes] ints in [0, nodes); frontier has
 *   frontier_size vertex ids; levels and cost have nodes ints (-1 =
 *   unvisited); next_frontier has room for every vertex (nodes ints);
 *   next_size is one int, initially 0. The masks have nodes ints (0/1).
 */

#define LOCAL_QUEUE 512

// run: bfs_queue --global 256 --local 64 --arg row_offsets=iota:257 --arg cols=random:256:0:256 --arg frontier=iota:200 --arg frontier_size=200 --arg levels=fill:256:-1 --arg next_frontier=zeros:256 --arg next_size=zeros:1 --arg level=3
// run: bfs_queue --global 256 --local 16 --arg row_offsets=iota:257 --arg cols=random:256:0:256 --arg frontier=iota:256 --arg frontier_size=256 --arg levels=fill:256:-1 --arg next_frontier=zeros:256 --arg next_size=zeros:1 --arg level=0
__kernel void bfs_queue(__global const int *row_offsets, __global const int *cols,
                        __global const int *frontier, int frontier_size,
                        __global int *levels, __global int *next_frontier,
                        __global int *next_size, int level)
{
    int gid = get_global_id(0);  //~ shape: contiguous
    if (gid >= frontier_size)  //~ branch: divergent
        return;

    int v = frontier[gid];  //~ shape: varying //~ access: frontier[gid]=contiguous
    int begin = row_offsets[v];  //~ warning[L0202]
    int end = row_offsets[v + 1];  //~ warning[L0202]
    for (int e = begin; e < end; e++) {  //~ loop: divergent //~ warning[L0201]
        int u = cols[e];  //~ warning[L0202]
        if (atomic_cmpxchg(&levels[u], -1, level + 1) == -1) {  //~ branch: divergent //~ warning[L0209]
            int slot = atomic_inc(next_size);  //~ warning[L0208]
            next_frontier[slot] = u;  //~ warning[L0203]
        }
    }
}

// run: bfs_queue_local --global 256 --local 64 --arg row_offsets=iota:257 --arg cols=random:256:0:256 --arg frontier=iota:200 --arg frontier_size=200 --arg levels=fill:256:-1 --arg next_frontier=zeros:256 --arg next_size=zeros:1 --arg level=1
// run: bfs_queue_local --global 256 --local 128 --arg row_offsets=iota:257 --arg cols=random:256:0:256 --arg frontier=iota:256 --arg frontier_size=256 --arg levels=fill:256:-1 --arg next_frontier=zeros:256 --arg next_size=zeros:1 --arg level=1
__kernel void bfs_queue_local(__global const int *row_offsets, __global const int *cols,
                              __global const int *frontier, int frontier_size,
                              __global int *levels, __global int *next_frontier,
                              __global int *next_size, int level)
{
    __local int queue[LOCAL_QUEUE];
    __local int queue_len;
    __local int queue_base;

    int gid = get_global_id(0);
    int lid = get_local_id(0);  //~ shape: contiguous

    if (lid == 0)  //~ branch: divergent
        queue_len = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < frontier_size) {
        int v = frontier[gid];
        for (int e = row_offsets[v]; e < row_offsets[v + 1]; e++) {  //~ loop: divergent //~ warning[L0201] warning[L0202]
            int u = cols[e];  //~ warning[L0202]
            if (atomic_cmpxchg(&levels[u], -1, level + 1) == -1)  //~ warning[L0209]
                queue[atomic_inc(&queue_len)] = u;  //~ warning[L0208] warning[L0203]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0)
        queue_base = atomic_add(next_size, queue_len);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i = lid; i < queue_len; i += get_local_size(0))  //~ loop: divergent //~ warning[L0201]
        next_frontier[queue_base + i] = queue[i];  //~ access: queue[i]=contiguous, next_frontier[queue_base + i]=store:contiguous
}

// run: bfs_mask --global 256 --local 64 --arg row_offsets=iota:257 --arg cols=random:256:0:256 --arg mask=random:256:0:2 --arg updating_mask=zeros:256 --arg visited=random:256:0:2 --arg cost=fill:256:-1 --arg over=zeros:1 --arg nodes=256 --arg level=4
// run: bfs_mask --global 256 --local 32 --arg row_offsets=iota:257 --arg cols=random:256:0:256 --arg mask=random:256:0:2 --arg updating_mask=zeros:256 --arg visited=random:256:0:2 --arg cost=fill:256:-1 --arg over=zeros:1 --arg nodes=256 --arg level=0
__kernel void bfs_mask(__global const int *row_offsets, __global const int *cols,
                       __global int *mask, __global int *updating_mask,
                       __global const int *visited, __global int *cost,
                       __global int *over, int nodes, int level)
{
    int tid = get_global_id(0);  //~ shape: contiguous
    if (tid < nodes && mask[tid]) {  //~ branch: divergent
        mask[tid] = 0;  //~ access: mask[tid]=store:contiguous
        for (int i = row_offsets[tid]; i < row_offsets[tid + 1]; i++) {  //~ loop: divergent //~ warning[L0201]
            int id = cols[i];  //~ warning[L0202]
            if (!visited[id]) {  //~ branch: divergent //~ warning[L0202]
                atomic_xchg(&cost[id], level + 1);  //~ warning[L0209]
                atomic_xchg(&updating_mask[id], 1);  //~ warning[L0209]
                atomic_xchg(over, 1);  //~ warning[L0208]
            }
        }
    }
}
