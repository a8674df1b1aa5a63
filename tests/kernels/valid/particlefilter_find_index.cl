// particlefilter_find_index.cl - the resampling search of Rodinia's particle
// filter: every particle finds the first entry of the cumulative weights
// CDF that reaches its threshold u[i] and copies that particle's position.
//   find_index_kernel:       Rodinia's kernel (double, ends in a barrier).
//   find_index_kernel_float: the single-precision version of the same.
//
// Launch: 1-D, one work-item per particle: global = round_up(Nparticles);
//   ids >= Nparticles do nothing.
// Arguments: arrayX, arrayY, CDF and u have Nparticles elements (CDF
//   ascending on real inputs, any values are in bounds), xj and yj receive
//   Nparticles elements; weights is unused (Rodinia passes it).
//
// The search loop is divergent (each lane leaves at its own x), and u[i]
// has the same address in every iteration of it: the vectorized loop loads
// it once, before the loop.

__kernel void find_index_kernel(__global double *arrayX, __global double *arrayY,
                                __global double *CDF, __global double *u,
                                __global double *xj, __global double *yj,
                                __global double *weights, int Nparticles)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < Nparticles) {  //~ branch: divergent
        int index = -1;
        int x;
        for (x = 0; x < Nparticles; x++) {  //~ loop: divergent //~ warning[L0201]
            if (CDF[x] >= u[i]) {  //~ access: CDF[x]=uniform, u[i]=contiguous
                index = x;
                break;
            }
        }
        if (index == -1)
            index = Nparticles - 1;
        xj[i] = arrayX[index];  //~ access: arrayX[index]=gather, xj[i]=store:contiguous //~ warning[L0202]
        yj[i] = arrayY[index];  //~ warning[L0202]
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
}

__kernel void find_index_kernel_float(__global const float *arrayX,
                                      __global const float *arrayY,
                                      __global const float *CDF,
                                      __global const float *u,
                                      __global float *xj, __global float *yj,
                                      int Nparticles)
{
    int i = get_global_id(0);
    if (i >= Nparticles)
        return;
    int index = -1;
    for (int x = 0; x < Nparticles; x++) {  //~ loop: divergent //~ warning[L0201]
        if (CDF[x] >= u[i]) {
            index = x;
            break;
        }
    }
    if (index == -1)
        index = Nparticles - 1;
    xj[i] = arrayX[index];  //~ warning[L0202]
    yj[i] = arrayY[index];  //~ warning[L0202]
}
