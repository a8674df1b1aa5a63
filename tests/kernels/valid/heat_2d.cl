// heat_2d.cl - one explicit step of the 2-D heat equation on a grid with
// mixed boundary conditions: the top and bottom rows are held at fixed
// temperatures (Dirichlet), the left and right edges are insulated
// (Neumann: the missing neighbour mirrors the cell itself).
//
// Launch: 2-D NDRange, dimension 0 over x, dimension 1 over y:
//   global = (round_up(nx), round_up(ny)); items outside return.
// Arguments: t_old and t_new are nx x ny row-major floats, nx >= 1,
//   ny >= 2; alpha = k dt / dx^2 <= 0.25 for stability.

__kernel void heat_step(__global const float *t_old, __global float *t_new,
                        int nx, int ny, float alpha, float t_top, float t_bottom)
{
    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    if (x >= nx || y >= ny)
        return;

    int idx = y * nx + x;  //~ shape: contiguous
    if (y == 0) {  //~ branch: uniform
        t_new[idx] = t_top;  //~ access: t_new[idx]=store:contiguous
        return;
    }
    if (y == ny - 1) {  //~ branch: uniform
        t_new[idx] = t_bottom;
        return;
    }

    float c = t_old[idx];  //~ shape: varying //~ access: t_old[idx]=contiguous
    float west = x > 0 ? t_old[idx - 1] : c;  //~ shape: varying //~ branch: divergent //~ access: t_old[idx - 1]=contiguous
    float east = x < nx - 1 ? t_old[idx + 1] : c;  //~ shape: varying //~ branch: divergent //~ access: t_old[idx + 1]=contiguous
    float north = t_old[idx - nx];  //~ access: t_old[idx - nx]=contiguous
    float south = t_old[idx + nx];  //~ access: t_old[idx + nx]=contiguous
    t_new[idx] = c + alpha * (west + east + north + south - 4.0f * c);  //~ access: t_new[idx]=store:contiguous
}
