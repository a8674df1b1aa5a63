/*
 * pathfinder.cl - Rodinia's PathFinder: dynamic programming for the
 * cheapest path from the top row of a cost grid to each cell of a lower
 * row, moving down one row per step to the same column or a neighbouring
 * one. One launch advances `iteration` rows with a pyramid in __local
 * memory: a work-group loads BLOCK_SIZE costs of the previous row, and
 * every step the ring of valid cells shrinks by HALO on each side, so the
 * work-group produces BLOCK_SIZE - 2 HALO iteration new columns.
 *
 * Launch: 1-D, global = ceil(cols / (BLOCK_SIZE - 2 iteration)) BLOCK_SIZE,
 *   local = BLOCK_SIZE (fixed), 1 <= iteration < BLOCK_SIZE / 2.
 * Arguments: wall has rows * cols ints (row r = cost of row r); src has
 *   cols ints (costs up to row startStep - 1), dst receives the costs up
 *   to row startStep + iteration - 1; startStep + iteration <= rows.
 */

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 64
#endif
#define HALO 1
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))

// run: dynproc_kernel --global 320 --local 64 --arg iteration=4 --arg wall=random:2000:0:10 --arg src=random:200:0:10 --arg dst=zeros:200 --arg cols=200 --arg rows=10 --arg startStep=1 --arg border=4
// run: dynproc_kernel --global 128 --local 16 -D BLOCK_SIZE=16 --arg iteration=2 --arg wall=random:500:0:10 --arg src=random:50:0:10 --arg dst=zeros:50 --arg cols=50 --arg rows=10 --arg startStep=3 --arg border=2
// run: dynproc_kernel --global 448 --local 64 --arg iteration=1 --arg wall=random:1000:0:10 --arg src=random:200:0:10 --arg dst=zeros:200 --arg cols=200 --arg rows=5 --arg startStep=4 --arg border=1
__kernel void dynproc_kernel(int iteration, __global const int *wall,
                             __global const int *src, __global int *dst,
                             int cols, int rows, int startStep, int border)
{
    __local int prev[BLOCK_SIZE];
    __local int result[BLOCK_SIZE];

    int bx = get_group_id(0);  //~ shape: uniform
    int tx = get_local_id(0);  //~ shape: contiguous

    // The columns this work-group reads (wider than those it writes).
    int small_block_cols = BLOCK_SIZE - (iteration * HALO * 2);
    int blkX = (small_block_cols * bx) - border;  //~ shape: uniform
    int blkXmax = blkX + BLOCK_SIZE - 1;
    int xidx = blkX + tx;  //~ shape: contiguous

    int validXmin = (blkX < 0) ? -blkX : 0;  //~ branch: uniform
    int validXmax = (blkXmax > cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - cols + 1) : BLOCK_SIZE - 1;

    int W = tx - 1;
    int E = tx + 1;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool isValid = IN_RANGE(tx, validXmin, validXmax);

    if (IN_RANGE(xidx, 0, cols - 1))
        prev[tx] = src[xidx];  //~ access: prev[tx]=store:contiguous, src[xidx]=contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    bool computed = false;
    for (int i = 0; i < iteration; i++) {  //~ loop: uniform
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
            computed = true;
            int left = prev[W];  //~ access: prev[W]=gather //~ warning[L0202]
            int up = prev[tx];
            int right = prev[E];  //~ warning[L0202]
            int shortest = min(min(left, up), right);
            int index = cols * (startStep + i) + xidx;
            result[tx] = shortest + wall[index];  //~ access: wall[index]=contiguous
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i == iteration - 1)
            break;
        if (computed)
            prev[tx] = result[tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (computed)
        dst[xidx] = result[tx];
}
