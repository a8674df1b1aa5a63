// Rodinia particle filter (particle_single.cl): resampling. Every particle
// finds the first entry of the cumulative weights CDF that reaches its
// threshold u[i] and copies that particle's position. The search loop is
// divergent with a `break`; u[i] is the same in every iteration.
__kernel void find_index_kernel(__global float *arrayX, __global float *arrayY,
                                __global float *CDF, __global float *u,
                                __global float *xj, __global float *yj,
                                __global float *weights, int Nparticles)
{
    int i = get_global_id(0);
    if (i < Nparticles) {
        int index = -1;
        int x;
        for (x = 0; x < Nparticles; x++) {
            if (CDF[x] >= u[i]) {
                index = x;
                break;
            }
        }
        if (index == -1)
            index = Nparticles - 1;
        xj[i] = arrayX[index];
        yj[i] = arrayY[index];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
}
