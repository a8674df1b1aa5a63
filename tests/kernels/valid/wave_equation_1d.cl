// wave_equation_1d.cl - one leapfrog time step of the 1-D wave equation
// u_tt = c^2 u_xx with fixed (Dirichlet) ends:
//   next[i] = 2 u[i] - prev[i] + courant2 * (u[i-1] - 2 u[i] + u[i+1]).
// The end points keep the boundary values given in left and right.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: prev, u and next have n floats, n >= 2; courant2 = (c dt/dx)^2
//   <= 1 for stability.

__kernel void wave_step(__global const float *prev, __global const float *u,
                        __global float *next, float courant2,
                        float left, float right, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    if (i == 0) {  //~ branch: divergent
        next[i] = left;  //~ access: next[i]=store:contiguous
    } else if (i == n - 1) {  //~ branch: divergent
        next[i] = right;  //~ access: next[i]=store:contiguous
    } else {
        float lap = u[i - 1] - 2.0f * u[i] + u[i + 1];  //~ shape: varying //~ access: u[i - 1]=contiguous, u[i]=contiguous, u[i + 1]=contiguous
        next[i] = 2.0f * u[i] - prev[i] + courant2 * lap;  //~ access: next[i]=store:contiguous, u[i]=contiguous, prev[i]=contiguous
    }
}
